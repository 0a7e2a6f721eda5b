import type { SubmissionView } from '@htm/contracts/jobs';
import { featureFlags } from '../lib/config';
import { FindingsList } from './findings-list';
import { RecordingPlayer } from './recording-player';
import { ResultFiles } from './result-files';
import { SessionCheckLine } from './session-check-line';
import { errorMessage } from '../lib/error-message';
import { formatDate } from '../lib/format';
import { useNotify } from '../lib/hooks';
import { downloadBlob, withDownloadFlag } from '../lib/transfer';
import type { JobView as Job } from '@htm/contracts/jobs';
import findings from './findings-list.module.css';
import styles from './job-results.module.css';

const EXT_BY_TYPE: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
};

/**
 * The name a result file is shown and saved under: the tester's own file name as the server
 * stored it (sanitised there), else a file name in its link, else 'Screenshot N'.
 */
export function fileLabel(url: string, i: number, name?: string | null): string {
  const own = name?.replace(/[^\p{L}\p{N} ._-]+/gu, '_').slice(0, 100);
  if (own && /^[^.].*\.[a-z0-9]{2,5}$/i.test(own)) return own;
  const last = decodeURIComponent(url.split('?')[0].split('/').pop() ?? '');
  const clean = last.replace(/[^\w.\- ]+/g, '_').slice(0, 100);
  return /^[\w\- ]+\.[a-z0-9]{2,5}$/i.test(clean) ? clean : `Screenshot ${i + 1}`;
}

/** The saved file's name: the label with the extension the downloaded file's type calls for. */
export function downloadName(url: string, i: number, type: string, name?: string | null): string {
  const label = fileLabel(url, i, name);
  if (/\.[a-z0-9]{2,5}$/i.test(label)) return label;
  const ext = EXT_BY_TYPE[type.split(';')[0].trim()];
  return `${label.replace(/ /g, '-').toLowerCase()}${ext ? `.${ext}` : ''}`;
}

/** The preview every poster sees as soon as work is submitted. */
export function SubmissionPreview({ submission }: { submission: SubmissionView }) {
  const p = submission.human_preview;
  return (
    <section className="preview" aria-label="Preview">
      <p className="muted">
        Submitted by <strong>{submission.submitted_by_snapshot?.name ?? 'Tester'}</strong>
        {submission.submitted_by_snapshot?.location
          ? ` (${submission.submitted_by_snapshot.location})`
          : ''}{' '}
        on {formatDate(submission.submitted_at)}
        {submission.revision ? ` · revision ${submission.revision}` : ''}
      </p>
      <SessionCheckLine check={submission.session_check} />
      {p?.device_used || p?.browser_used ? (
        <dl className={findings.meta}>
          <div>
            <dt>Device</dt>
            <dd>{p?.device_used || '—'}</dd>
          </div>
          <div>
            <dt>Browser</dt>
            <dd>{p?.browser_used || '—'}</dd>
          </div>
        </dl>
      ) : null}
      <h3>Key findings</h3>
      {submission.recording ? (
        <RecordingPlayer recording={submission.recording} findings={submission.findings ?? []} />
      ) : submission.findings?.length ? (
        <FindingsList findings={submission.findings} />
      ) : (
        <ul className={findings.findings}>
          {(p?.key_findings_bullets ?? []).map((k, i) => (
            <li key={i} dir="auto" id={`finding-${i + 1}`} tabIndex={-1}>
              {k}
            </li>
          ))}
        </ul>
      )}
      {featureFlags.INLINE_PREVIEW_ENABLED && p?.small_image_url ? (
        <img
          className={styles.preview__img}
          src={p.small_image_url}
          alt="Screenshot from the tester (preview)"
          loading="lazy"
        />
      ) : null}
    </section>
  );
}

/** Full results: unlocked after the poster accepts (or 96 h auto-accept). */
export function FullResults({ job, submission }: { job: Job; submission: SubmissionView }) {
  const { toast } = useNotify();
  const download = async (url: string, i: number) => {
    const res = await downloadBlob(withDownloadFlag(url), (blob) =>
      downloadName(url, i, blob.type, submission.file_names?.[i]),
    );
    if (res.error) toast(errorMessage(res.error, 'Download failed'));
  };
  // Only what the tester answered: the Quick report answers no checklist items.
  const answered = job.requirements
    .map((req, i) => ({
      req,
      i,
      text:
        submission.requirement_responses
          ?.find((x) => x.requirement_index === i)
          ?.response_text?.trim() ?? '',
    }))
    .filter((a) => a.text);
  return (
    <section className="results" aria-label="Full results">
      {answered.length ? (
        <>
          <h3>Answers to your checklist</h3>
          <ol className={styles.answers}>
            {answered.map(({ req, text, i }) => (
              <li key={i} value={i + 1}>
                <p className={styles.answers__q} dir="auto">
                  {req}
                </p>
                <p className="answers__a prewrap" dir="auto">
                  {text}
                </p>
              </li>
            ))}
          </ol>
        </>
      ) : null}
      {submission.general_feedback ? (
        <>
          <h3>{answered.length ? 'General feedback' : 'Feedback'}</h3>
          <p className="prewrap" dir="auto">
            {submission.general_feedback}
          </p>
        </>
      ) : null}
      {submission.file_urls?.length ? (
        <>
          <h3>Screenshots and files</h3>
          <ResultFiles
            urls={submission.file_urls}
            label={(i) => fileLabel(submission.file_urls![i], i, submission.file_names?.[i])}
            onDownload={download}
          />
        </>
      ) : null}
    </section>
  );
}
