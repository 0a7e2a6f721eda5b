import type { FindingSeverity } from './findings.js';
import {
  HEALTH_CHECK_TOO,
  SEQ_AVERAGE,
  SEQ_SCALE,
  SUS_AVERAGE,
  type ReportSummary,
  type SummaryProblem,
  type SummaryReelClip,
  type SummaryTask,
} from './summary.js';

/**
 * The verdict's words (issue #51), the same wherever the summary is shown: the owner's report, the
 * share page, the PDF and the results-ready e-mail.
 */
export const SUMMARY_TEXT = {
  fixFirst: 'Fix first',
  noProblems: 'No problems were reported.',
  worked: 'What worked',
  tasks: 'How each thing to check went',
  reel: 'Highlight reel',
  agree: 'What the testers agree on',
  locked: "The testers' answers on each thing to check count here once you accept their reports.",
  /** The same, for whoever reads a shared copy. */
  lockedShared:
    "The testers' answers on each thing to check count here once the site owner accepts their reports.",
  pending: 'The summary is being prepared: it appears here in a few seconds.',
  columns: {
    thing: 'Thing to check',
    success: 'Success',
    time: 'Median time',
    ease: `Ease (average ${SEQ_AVERAGE} of ${SEQ_SCALE.max})`,
  },
} as const;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "3 of 5 testers". */
export const testersHitText = (p: Pick<SummaryProblem, 'testers_hit' | 'testers_total'>) =>
  `${p.testers_hit} of ${plural(p.testers_total, 'tester')}`;

/**
 * "The health check found this too: 12 images have no text for screen readers" beside a problem
 * the machine health check confirms (issue #53's findings matching its words), else null.
 */
export function machineLine(p: Pick<SummaryProblem, 'machine_findings'>): string | null {
  const found = p.machine_findings ?? [];
  if (!found.length) return null;
  const more = found.length > 1 ? ` (and ${found.length - 1} more)` : '';
  return `${HEALTH_CHECK_TOO}: ${found[0].text}${more}.`;
}

/** "Blocker", "Major", ...; "Not rated" when the tester gave none. */
export const severityWord = (s: FindingSeverity | string | null) =>
  s ? `${s[0].toUpperCase()}${s.slice(1)}` : 'Not rated';

/** The thing to check a problem belongs to, in the owner's words, when known. */
export function thingToCheckOf(
  summary: Pick<ReportSummary, 'tasks'>,
  p: Pick<SummaryProblem, 'requirement_index'>,
): string | null {
  if (p.requirement_index === null) return null;
  return summary.tasks.find((t) => t.requirement_index === p.requirement_index)?.text ?? null;
}

/** "45 s", "4 min", "1 h 5 min". */
export function durationWords(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/** One thing to check's figures in words, each with its own count. */
export function taskFacts(t: SummaryTask): {
  success: string;
  time: string;
  ease: string;
  sentence: string;
} {
  return {
    success:
      t.success_rate === null
        ? 'No answers'
        : `${Math.round(t.success_rate * 100)}% (${plural(t.n, 'tester')})`,
    time: t.median_time_ms === null ? 'Not timed' : durationWords(t.median_time_ms),
    ease:
      t.seq_mean === null
        ? 'Not rated'
        : `${t.seq_mean} of ${SEQ_SCALE.max} (${plural(t.seq_n, 'tester')})`,
    sentence: t.sentence,
  };
}

/** A re-test's line: "Before: 50% success, 3.5 of 7 ease → now: 100%, 6 of 7". */
export function taskBeforeAfter(t: SummaryTask): string | null {
  const b = t.before;
  if (!b) return null;
  const pct = (x: number | null) => (x === null ? 'no answer' : `${Math.round(x * 100)}%`);
  const ease = (x: number | null) => (x === null ? 'not rated' : `${x} of ${SEQ_SCALE.max}`);
  return `Before the fixes: ${pct(b.success_rate)} success, ease ${ease(b.seq_mean)}. Now: ${pct(t.success_rate)}, ease ${ease(t.seq_mean)}.`;
}

/** The SUS line: "Overall usability: 72.5 of 100 (average 68), 3 testers. More usable than most sites." */
export function susLine(sus: NonNullable<ReportSummary['sus']>): string {
  return `Overall usability (SUS): ${sus.mean} of 100 against an average of ${SUS_AVERAGE}, from ${plural(sus.n, 'tester')}. ${sus.sentence.replace(/ \(.*\)\.$/, '.')}`;
}

/** "1 blocker, 2 major, 1 cosmetic" over the severities given (unrated ones counted apart). */
export function severityCounts(severities: Array<string | null>): string {
  const order = ['blocker', 'major', 'minor', 'cosmetic'];
  const counts = new Map<string, number>();
  for (const s of severities) counts.set(s ?? 'unrated', (counts.get(s ?? 'unrated') ?? 0) + 1);
  const parts = [...order, 'unrated']
    .filter((k) => counts.get(k))
    .map((k) => `${counts.get(k)} ${k === 'unrated' ? 'not rated' : k}`);
  return parts.length ? parts.join(', ') : 'none';
}

/** The reel's length in seconds, rounded. */
export const reelSeconds = (reel: Pick<SummaryReelClip, 'start_ms' | 'end_ms'>[]) =>
  Math.round(reel.reduce((n, c) => n + (c.end_ms - c.start_ms), 0) / 1000);

/** "3 clips, 45 s: the moment each top problem shows in the testers' recordings." */
export const reelIntro = (reel: Pick<SummaryReelClip, 'start_ms' | 'end_ms'>[]) =>
  `${plural(reel.length, 'clip')}, ${reelSeconds(reel)} s: the moment each top problem shows in the testers' recordings.`;
