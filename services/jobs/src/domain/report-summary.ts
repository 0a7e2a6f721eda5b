import {
  FINDING_SEVERITIES,
  machineFindingsMatching,
  SEQ_AVERAGE,
  SEQ_SCALE,
  SUMMARY_LIMITS,
  SUS_AVERAGE,
  SUS_SCALE,
  type FindingSeverity,
  type ReportSummary,
  type SiteCheckFinding,
  type SummaryProblem,
  type SummaryReelClip,
  type SummaryTask,
  type TaskOutcome,
} from '@htm/contracts';

/**
 * The verdict at the top of a report (issue #51): what to fix first, how each thing to check went,
 * SUS, and a reel of the moments. Pure and deterministic: the same input gives the same summary
 * (every order has a final tie-break), so recomputing it changes nothing unless its input did.
 */

export interface SummaryFinding {
  text: string;
  severity: FindingSeverity | null;
  atMs: number | null;
  /** The thing to check the tester said it belongs to, if any. */
  requirementIndex?: number | null;
}

/** The thing to check most of a problem's findings name (the lowest index on a tie), else null. */
export function requirementOf(findings: SummaryFinding[]): number | null {
  const counts = new Map<number, number>();
  for (const f of findings)
    if (f.requirementIndex != null)
      counts.set(f.requirementIndex, (counts.get(f.requirementIndex) ?? 0) + 1);
  let best: number | null = null;
  for (const [r, n] of counts)
    if (best === null || n > counts.get(best)! || (n === counts.get(best)! && r < best)) best = r;
  return best;
}

export interface TaskAnswer {
  requirementIndex: number;
  outcome: TaskOutcome | null;
  /** Single Ease Question, 1-7. */
  seq: number | null;
  timeMs: number | null;
}

export interface SummarySubmission {
  id: string;
  findings: SummaryFinding[];
  /** The screenshot the poster sees beside this tester's findings (a link), if any. */
  screenshotUrl: string | null;
  recording: { id: string; durationMs: number | null } | null;
  tasks: TaskAnswer[];
  /** The 10 SUS answers (1-5), or null when not given. */
  sus: number[] | null;
}

/** A finding by its place: submission (index into submissions) and finding index. */
export interface FindingRef {
  submission: number;
  finding: number;
}

export interface SummaryInput {
  generatedAt: Date;
  requirements: string[];
  submissions: SummarySubmission[];
  /**
   * Findings that describe one problem (the pack's grouping with the testers' and the owner's
   * choices applied). Findings in no group count as a problem of their own.
   */
  groups: FindingRef[][];
  /** The title of each group (its most central finding); default: its first finding's text. */
  titles?: string[];
  /** The machine health check's findings of the site (a done check's summary.findings), if any. */
  machine?: readonly SiteCheckFinding[];
}

const severityRank = (s: FindingSeverity | null) =>
  s ? FINDING_SEVERITIES.indexOf(s) : FINDING_SEVERITIES.length;

const words = (text: string) => text.trim().split(/\s+/).filter(Boolean);

/** At most `max` words; a longer text ends with an ellipsis. */
export function clipWords(text: string, max: number): string {
  const w = words(text);
  return w.length <= max ? w.join(' ') : `${w.slice(0, max).join(' ')}…`;
}

/** SUS score of one questionnaire (Brooke 1996): odd items score - 1, even items 5 - score, sum x 2.5. */
export function susScore(answers: readonly number[]): number | null {
  if (answers.length !== 10) return null;
  if (answers.some((a) => !Number.isInteger(a) || a < SUS_SCALE.min || a > SUS_SCALE.max))
    return null;
  const sum = answers.reduce((acc, a, i) => acc + (i % 2 === 0 ? a - 1 : 5 - a), 0);
  return sum * 2.5;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const round = (x: number | null, digits: number) =>
  x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits;

export function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const OUTCOME_CREDIT: Record<TaskOutcome, number> = { done: 1, partly: 0.5, not_done: 0 };
const testers = (n: number) => `${n} tester${n === 1 ? '' : 's'}`;

function easeSentence(seqMean: number | null, seqN: number): string {
  if (seqMean === null) return 'No one rated how easy it was.';
  const how =
    seqMean > SEQ_AVERAGE
      ? 'Easier than most sites'
      : seqMean < SEQ_AVERAGE
        ? 'Harder than most sites'
        : 'As easy as most sites';
  return `${how} (${seqMean} of ${SEQ_SCALE.max}, ${testers(seqN)}).`;
}

export function susSentence(mean: number, n: number): string {
  const how =
    mean > SUS_AVERAGE
      ? 'More usable than most sites'
      : mean < SUS_AVERAGE
        ? 'Less usable than most sites'
        : 'As usable as most sites';
  return `${how} (${mean} of 100, the average is ${SUS_AVERAGE}; ${testers(n)}).`;
}

/** Per thing to check: success rate, SEQ mean and median time over the testers who answered. */
export function taskMetrics(requirements: string[], subs: SummarySubmission[]): SummaryTask[] {
  return requirements.map((text, requirementIndex) => {
    const answers = subs
      .map((s) => s.tasks.find((t) => t.requirementIndex === requirementIndex))
      .filter((a): a is TaskAnswer => !!a);
    const outcomes = answers.map((a) => a.outcome).filter((o): o is TaskOutcome => o !== null);
    const seqs = answers
      .map((a) => a.seq)
      .filter((v): v is number => v !== null && v >= SEQ_SCALE.min && v <= SEQ_SCALE.max);
    const times = answers.map((a) => a.timeMs).filter((v): v is number => v !== null && v >= 0);
    const seqMean = round(mean(seqs), 1);
    return {
      requirement_index: requirementIndex,
      text,
      success_rate: round(mean(outcomes.map((o) => OUTCOME_CREDIT[o])), 2),
      seq_mean: seqMean,
      median_time_ms: median(times),
      n: outcomes.length,
      seq_n: seqs.length,
      sentence: easeSentence(seqMean, seqs.length),
    };
  });
}

interface RankedProblem extends SummaryProblem {
  machine_findings: NonNullable<SummaryProblem['machine_findings']>;
  firstMomentMs: number;
  refs: FindingRef[];
}

/** The machine findings that match what any of the problem's findings says (in the check's order: worst first). */
function machineConfirming(
  findings: SummaryFinding[],
  machine: readonly SiteCheckFinding[],
): RankedProblem['machine_findings'] {
  if (!machine.length) return [];
  const matched = new Set(findings.flatMap((f) => machineFindingsMatching(f.text, machine)));
  return machine
    .filter((m) => matched.has(m))
    .map(({ key, topic, impact, text }) => ({ key, topic, impact, text }));
}

function problems(input: SummaryInput): RankedProblem[] {
  const { submissions: subs } = input;
  const grouped = new Set(input.groups.flat().map((r) => `${r.submission}:${r.finding}`));
  const groups = [...input.groups.map((g, i) => ({ refs: g, title: input.titles?.[i] }))];
  subs.forEach((s, si) =>
    s.findings.forEach((_, fi) => {
      if (!grouped.has(`${si}:${fi}`))
        groups.push({ refs: [{ submission: si, finding: fi }], title: undefined });
    }),
  );
  const testersTotal = subs.length;
  return groups
    .filter((g) => g.refs.length > 0)
    .map((g) => {
      const refs = [...g.refs].sort((a, b) => a.submission - b.submission || a.finding - b.finding);
      const findings = refs.map((r) => subs[r.submission].findings[r.finding]);
      const worst = Math.min(...findings.map((f) => severityRank(f.severity)));
      const moments = findings.map((f) => f.atMs).filter((m): m is number => m !== null);
      return {
        title: clipWords(g.title ?? findings[0].text, SUMMARY_LIMITS.titleWords),
        severity: FINDING_SEVERITIES[worst] ?? null,
        testers_hit: new Set(refs.map((r) => r.submission)).size,
        testers_total: testersTotal,
        requirement_index: requirementOf(findings),
        evidence: refs.map((r) => ({
          submission_id: subs[r.submission].id,
          finding_index: r.finding,
          at_ms: subs[r.submission].findings[r.finding].atMs,
          screenshot_url: subs[r.submission].screenshotUrl,
        })),
        machine_findings: machineConfirming(findings, input.machine ?? []),
        firstMomentMs: moments.length ? Math.min(...moments) : Number.POSITIVE_INFINITY,
        refs,
      };
    })
    .sort(
      (a, b) =>
        severityRank(a.severity) - severityRank(b.severity) ||
        b.testers_hit - a.testers_hit ||
        // The health check found it too: a second witness.
        Math.sign(b.machine_findings.length) - Math.sign(a.machine_findings.length) ||
        a.firstMomentMs - b.firstMomentMs ||
        a.title.localeCompare(b.title) ||
        a.refs[0].submission - b.refs[0].submission ||
        a.refs[0].finding - b.refs[0].finding,
    );
}

/**
 * One clip per top problem: its first moment in a recording whose length is known, from
 * clipBeforeMs before to clipAfterMs after, inside the recording; clips of one recording that
 * overlap are merged (captions joined); the reel stops before reelMaxMs in all.
 */
export function reelOf(top: RankedProblem[], subs: SummarySubmission[]): SummaryReelClip[] {
  const clips: SummaryReelClip[] = [];
  for (const p of top) {
    const moment = p.refs
      .map((r) => ({ sub: subs[r.submission], f: subs[r.submission].findings[r.finding] }))
      .filter((x) => x.f.atMs !== null && x.sub.recording?.durationMs != null)
      .sort((a, b) => a.f.atMs! - b.f.atMs!)
      .find((x) => x.f.atMs! < x.sub.recording!.durationMs!);
    if (!moment) continue;
    const duration = moment.sub.recording!.durationMs!;
    const at = moment.f.atMs!;
    clips.push({
      recording_id: moment.sub.recording!.id,
      start_ms: Math.max(0, at - SUMMARY_LIMITS.clipBeforeMs),
      end_ms: Math.min(duration, at + SUMMARY_LIMITS.clipAfterMs),
      caption: clipWords(p.title, SUMMARY_LIMITS.titleWords),
    });
  }
  // Merge overlapping clips of the same recording, keeping the order of the first.
  const merged: SummaryReelClip[] = [];
  for (const c of clips) {
    const other = merged.find(
      (m) => m.recording_id === c.recording_id && c.start_ms <= m.end_ms && m.start_ms <= c.end_ms,
    );
    if (other) {
      other.start_ms = Math.min(other.start_ms, c.start_ms);
      other.end_ms = Math.max(other.end_ms, c.end_ms);
      other.caption = `${other.caption} · ${c.caption}`;
    } else merged.push({ ...c });
  }
  const reel: SummaryReelClip[] = [];
  let total = 0;
  for (const c of merged) {
    const room = SUMMARY_LIMITS.reelMaxMs - total;
    if (room <= 0) break;
    const end = Math.min(c.end_ms, c.start_ms + room);
    reel.push({ ...c, end_ms: end });
    total += end - c.start_ms;
  }
  return reel;
}

/** Words of the first screen: the problems' titles and counts, and what worked. */
export function firstScreenWords(s: Pick<ReportSummary, 'problems' | 'worked'>): number {
  return (
    s.problems.reduce((n, p) => n + words(p.title).length + 4 /* "n of N testers" */ + 1, 0) +
    s.worked.reduce((n, w) => n + words(w).length, 0)
  );
}

/** The summary of a job (one submission) or a pack (one per tester). */
export function summarize(input: SummaryInput): ReportSummary {
  const ranked = problems(input);
  const top = ranked.slice(0, SUMMARY_LIMITS.problems);
  const tasks = taskMetrics(input.requirements, input.submissions);
  const worked = tasks
    .filter((t) => t.n > 0 && t.success_rate === 1)
    .slice(0, SUMMARY_LIMITS.workedItems)
    .map((t) => `${clipWords(t.text, 12)}: done by ${testers(t.n)}`);
  const scores = input.submissions
    .map((s) => (s.sus ? susScore(s.sus) : null))
    .filter((v): v is number => v !== null);
  const susMean = round(mean(scores), 1);
  return {
    generated_at: input.generatedAt.toISOString(),
    problems: top.map(({ firstMomentMs: _m, refs: _r, ...p }) => p),
    worked,
    tasks,
    sus:
      susMean === null
        ? null
        : { mean: susMean, n: scores.length, sentence: susSentence(susMean, scores.length) },
    reel: reelOf(top, input.submissions),
  };
}
