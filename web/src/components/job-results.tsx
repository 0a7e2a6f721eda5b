import type { SubmissionView } from '@htm/contracts/jobs';
import { featureFlags } from '../lib/config';
import { errorMessage } from '../lib/error-message';
import { formatDate } from '../lib/format';
import { useNotify } from '../lib/hooks';
import { downloadBlob, withDownloadFlag } from '../lib/transfer';
import type { Job } from '../lib/types';

const fileName = (url: string, i: number) => {
  const last = url.split('?')[0].split('/').pop() || `file-${i + 1}`;
  return last.includes('.') ? last : `result-${i + 1}`;
};

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
      {p?.device_used || p?.browser_used ? (
        <dl className="meta">
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
      <ul className="findings">
        {(p?.key_findings_bullets ?? []).map((k, i) => (
          <li key={i}>{k}</li>
        ))}
      </ul>
      {featureFlags.INLINE_PREVIEW_ENABLED && p?.small_image_url ? (
        <img
          className="preview__img"
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
    const res = await downloadBlob(withDownloadFlag(url), fileName(url, i));
    if (res.error) toast(errorMessage(res.error, 'Download failed'));
  };
  return (
    <section className="results" aria-label="Full results">
      <h3>Answers to your checklist</h3>
      <ol className="answers">
        {job.requirements.map((req, i) => {
          const r = submission.requirement_responses?.find((x) => x.requirement_index === i);
          return (
            <li key={i}>
              <p className="answers__q">{req}</p>
              <p className="answers__a">
                {r?.response_text || <span className="muted">No answer</span>}
              </p>
            </li>
          );
        })}
      </ol>
      {submission.general_feedback ? (
        <>
          <h3>General feedback</h3>
          <p className="prewrap">{submission.general_feedback}</p>
        </>
      ) : null}
      {submission.file_urls?.length ? (
        <>
          <h3>Files</h3>
          <ul className="files">
            {submission.file_urls.map((u, i) => (
              <li key={u}>
                <a href={u} target="_blank" rel="noreferrer">
                  {fileName(u, i)}
                </a>
                <button
                  type="button"
                  className="btn btn--secondary btn--sm"
                  onClick={() => download(u, i)}
                >
                  Download
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
