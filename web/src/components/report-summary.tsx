import { useEffect, useId, useRef, type ReactNode } from 'react';
import type { ReportSummary, SummaryEvidence, SummaryProblem } from '@htm/contracts/summary';
import {
  machineLine,
  severityWord,
  susLine,
  SUMMARY_TEXT,
  taskBeforeAfter,
  taskFacts,
  testersHitText,
  thingToCheckOf,
} from '@htm/contracts/summary-words';
import { SUMMARY_LIMITS } from '@htm/contracts/summary';
import { formatMoment } from '../lib/format-moment';
import {
  useGetJobSummaryQuery,
  useGetPackSummaryQuery,
  useJobSummaryState,
  usePackSummaryState,
} from '../lib/summary-api';
import { ReelPlayer, type ReelHandle } from './reel-player';
import { severityClass } from './severity';
import styles from './report-summary.module.css';
import { buttonClass } from './button';

/** Asked again this often while the summary is being computed (a few seconds after a report). */
const PENDING_POLL_MS = 3000;

const codeOf = (error: unknown) =>
  error && typeof error === 'object' && 'data' in error
    ? ((error as { data?: { code?: string } }).data?.code ?? null)
    : null;

/** A summary as the contract has it (anything else, e.g. an older server's answer, shows nothing). */
const isSummary = (s: unknown): s is ReportSummary =>
  !!s &&
  typeof s === 'object' &&
  ['problems', 'worked', 'tasks', 'reel'].every((k) =>
    Array.isArray((s as Record<string, unknown>)[k]),
  );

/** Still being computed: asked again until it is in. */
const isPending = (q: { data?: unknown; error?: unknown }) =>
  !q.data && codeOf(q.error) === 'summary_pending';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "Proof: 3 testers' words, 2 moments, 1 screenshot". */
function proofLabel(evidence: SummaryEvidence[]): string {
  const moments = evidence.filter((e) => e.at_ms !== null && e.recording_url).length;
  const shots = evidence.filter((e) => e.screenshot_url).length;
  return [
    plural(evidence.length, 'finding'),
    moments ? plural(moments, 'moment') : null,
    shots ? plural(shots, 'screenshot') : null,
  ]
    .filter(Boolean)
    .join(', ');
}

/** The owner's controls beside a problem and beside each of its findings (a pack's merge / split). */
export interface ProblemTools {
  problem(p: SummaryProblem): ReactNode;
  evidence(p: SummaryProblem, e: SummaryEvidence): ReactNode;
}

function Problem({
  summary,
  problem: p,
  n,
  findingHref,
  onMoment,
  tools,
}: {
  summary: ReportSummary;
  problem: SummaryProblem;
  n: number;
  findingHref?: (e: SummaryEvidence) => string | null;
  onMoment: (e: SummaryEvidence, caption: string) => void;
  tools?: ProblemTools;
}) {
  const thing = thingToCheckOf(summary, p);
  return (
    <li className={styles.problem} id={`fix-first-${n}`} tabIndex={-1}>
      <p className={styles.problemHead}>
        {tools?.problem(p)}
        <span className={severityClass(p.severity)}>{severityWord(p.severity)}</span>{' '}
        <strong dir="auto">{p.title}</strong>
      </p>
      <p className={styles.meta}>
        {testersHitText(p)}
        {thing ? (
          <>
            {' · '}
            <span dir="auto">{thing}</span>
          </>
        ) : null}
      </p>
      {machineLine(p) ? <p className={styles.machine}>{machineLine(p)}</p> : null}
      <details className={styles.proof}>
        <summary>Proof: {proofLabel(p.evidence)}</summary>
        <ul className={styles.evidence}>
          {p.evidence.map((e, i) => {
            const href = findingHref?.(e) ?? null;
            const who = e.tester || 'A tester';
            return (
              <li key={i}>
                <span className={styles.quote}>
                  {who}: <q dir="auto">{e.text ?? p.title}</q>
                </span>
                <span className={styles.links}>
                  {e.at_ms !== null && e.recording_url ? (
                    <button
                      type="button"
                      className={buttonClass('link', 'sm')}
                      onClick={() => onMoment(e, `${who}: ${e.text ?? p.title}`)}
                      aria-label={`Play ${who}'s recording at ${formatMoment(e.at_ms)}`}
                    >
                      Play {formatMoment(e.at_ms)}
                    </button>
                  ) : null}
                  {href ? (
                    <a
                      href={href}
                      onClick={(ev) => {
                        // In the same dialog: scroll there without changing the address.
                        const el = href.startsWith('#')
                          ? document.getElementById(href.slice(1))
                          : null;
                        if (!el) return;
                        ev.preventDefault();
                        el.scrollIntoView?.({ block: 'center' });
                        el.focus();
                      }}
                      aria-label={`Read ${who}'s finding: ${e.text ?? p.title}`}
                    >
                      Finding
                    </a>
                  ) : null}
                  {tools?.evidence(p, e)}
                  {e.screenshot_url ? (
                    <a
                      href={e.screenshot_url}
                      target="_blank"
                      rel="noreferrer"
                      aria-label={`${who}'s screenshot (opens in a new tab)`}
                    >
                      Screenshot
                    </a>
                  ) : null}
                </span>
              </li>
            );
          })}
        </ul>
      </details>
    </li>
  );
}

/** How each thing to check went: success, median time and ease (SEQ), each with its count. */
function Tasks({ summary }: { summary: ReportSummary }) {
  const answered = summary.tasks.filter((t) => t.n > 0 || t.seq_n > 0 || t.median_time_ms !== null);
  if (!answered.length) return null;
  const c = SUMMARY_TEXT.columns;
  return (
    <>
      <h4 className={styles.subtitle}>{SUMMARY_TEXT.tasks}</h4>
      <ul className={styles.tasks}>
        {answered.map((t) => {
          const f = taskFacts(t);
          const change = taskBeforeAfter(t);
          return (
            <li key={t.requirement_index} className={styles.task}>
              <p className={styles.thing} dir="auto">
                {t.text}
              </p>
              <dl className={styles.facts}>
                <div>
                  <dt>{c.success}</dt>
                  <dd>{f.success}</dd>
                </div>
                <div>
                  <dt>{c.time}</dt>
                  <dd>{f.time}</dd>
                </div>
                <div>
                  <dt>{c.ease}</dt>
                  <dd>{f.ease}</dd>
                </div>
              </dl>
              <p className={styles.sentence}>{f.sentence}</p>
              {change ? <p className={styles.sentence}>{change}</p> : null}
            </li>
          );
        })}
      </ul>
    </>
  );
}

/**
 * The verdict at the top of a report (issue #51): "Fix first" (up to five problems, each with how
 * many testers hit it, its severity, the thing to check and its proof), one line of what worked,
 * how each thing to check went, the SUS score, and the highlight reel. The proof sits behind a
 * disclosure so that the first screen stays short.
 */
export function ReportSummaryView({
  summary,
  findingHref,
  focusProblem,
  tools,
}: {
  summary: ReportSummary;
  /** The owner's merge / split controls (a pack's summary). */
  tools?: ProblemTools;
  /** Where a finding of this report is read (a job's report links its findings below). */
  findingHref?: (e: SummaryEvidence) => string | null;
  /** Problem N (from 1) is brought into view and focused (the results e-mail links to it). */
  focusProblem?: number | null;
}) {
  const titleId = useId();
  const reel = useRef<ReelHandle>(null);
  useEffect(() => {
    if (!focusProblem) return;
    const el = document.getElementById(`fix-first-${focusProblem}`);
    el?.scrollIntoView?.({ block: 'center' });
    el?.focus();
  }, [focusProblem]);
  const clips = summary.reel
    .filter((c) => !!c.url)
    .map((c) => ({ url: c.url!, start_ms: c.start_ms, end_ms: c.end_ms, caption: c.caption }));
  const hasMoments = summary.problems.some((p) =>
    p.evidence.some((e) => e.at_ms !== null && e.recording_url),
  );
  const playMoment = (e: SummaryEvidence, caption: string) => {
    const at = e.at_ms ?? 0;
    reel.current?.playMoment({
      url: e.recording_url!,
      start_ms: Math.max(0, at - SUMMARY_LIMITS.clipBeforeMs),
      end_ms: at + SUMMARY_LIMITS.clipAfterMs,
      caption,
    });
    document.getElementById(`${titleId}-reel`)?.scrollIntoView?.({ block: 'nearest' });
  };
  return (
    <section className={styles.root} aria-labelledby={titleId}>
      <h3 className={styles.title} id={titleId}>
        {SUMMARY_TEXT.fixFirst}
      </h3>
      {summary.problems.length ? (
        <ol className={styles.problems}>
          {summary.problems.map((p, i) => (
            <Problem
              key={i}
              n={i + 1}
              summary={summary}
              problem={p}
              findingHref={findingHref}
              onMoment={playMoment}
              tools={tools}
            />
          ))}
        </ol>
      ) : (
        <p className={styles.meta}>{SUMMARY_TEXT.noProblems}</p>
      )}
      {summary.worked.length ? (
        <p className={styles.worked}>
          <strong>{SUMMARY_TEXT.worked}:</strong>{' '}
          <span dir="auto">{summary.worked.join('; ')}</span>
        </p>
      ) : null}
      <Tasks summary={summary} />
      {summary.sus ? <p className={styles.sentence}>{susLine(summary.sus)}</p> : null}
      {summary.locked ? <p className={styles.note}>{SUMMARY_TEXT.locked}</p> : null}
      {clips.length || hasMoments ? (
        <div id={`${titleId}-reel`}>
          <ReelPlayer ref={reel} clips={clips} />
        </div>
      ) : null}
    </section>
  );
}

/** A summary being fetched: nothing before a report is in, a line while it is computed. */
function SummaryState({
  summary,
  error,
  findingHref,
  focusProblem,
  tools,
}: {
  summary: unknown;
  error: unknown;
  findingHref?: (e: SummaryEvidence) => string | null;
  focusProblem?: number | null;
  tools?: ProblemTools;
}) {
  if (isSummary(summary))
    return (
      <ReportSummaryView
        summary={summary}
        findingHref={findingHref}
        focusProblem={focusProblem}
        tools={tools}
      />
    );
  const code = codeOf(error);
  if (code === 'summary_pending')
    return (
      <p className={styles.note} role="status">
        {SUMMARY_TEXT.pending}
      </p>
    );
  return null;
}

/** The summary of one job's report, at the top of its review. */
export function JobSummary({
  jobId,
  focusProblem,
}: {
  jobId: string;
  focusProblem?: number | null;
}) {
  const cached = useJobSummaryState(jobId);
  const { data, error } = useGetJobSummaryQuery(jobId, {
    pollingInterval: isPending(cached) ? PENDING_POLL_MS : 0,
  });
  return (
    <SummaryState
      summary={data}
      error={error}
      findingHref={(e) => `#finding-${e.finding_index + 1}`}
      focusProblem={focusProblem}
    />
  );
}

/** The summary of a pack: what its testers agree on, first. */
export function PackSummary({
  packId,
  focusProblem,
  tools,
  awaitingChange = false,
}: {
  packId: string;
  focusProblem?: number | null;
  tools?: ProblemTools;
  /** Asked again until it changes (the owner regrouped: the server computes it again). */
  awaitingChange?: boolean;
}) {
  const cached = usePackSummaryState(packId);
  const { data, error } = useGetPackSummaryQuery(packId, {
    pollingInterval: isPending(cached) || awaitingChange ? PENDING_POLL_MS : 0,
  });
  return <SummaryState summary={data} error={error} focusProblem={focusProblem} tools={tools} />;
}

/** The findings a pack's "Fix first" shows, by report and place ("submission:index"). */
export function usePackSummaryFindings(packId: string): {
  shown: ReadonlySet<string>;
  generatedAt: string | null;
} {
  const { data } = usePackSummaryState(packId);
  if (!isSummary(data)) return { shown: new Set(), generatedAt: null };
  return {
    shown: new Set(
      data.problems.flatMap((p) => p.evidence.map((e) => `${e.submission_id}:${e.finding_index}`)),
    ),
    generatedAt: data.generated_at,
  };
}
