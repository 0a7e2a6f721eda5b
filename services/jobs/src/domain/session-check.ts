import bloomFilters from 'bloom-filters';
import {
  sessionVerdict,
  type SessionCheckReason,
  type SessionCheckThresholds,
  type SessionMetrics,
  type SessionVerdict,
} from '@htm/contracts/marketplace';

/**
 * The session checks' rules ("Every session checked"), pure: what a recording's silences and
 * still screens, the report's answers and its text against other reports say about a session.
 * The measuring (ffmpeg) is the media provider's (providers/media-tools.ts `analyse`); the
 * gathering and the outcome are session-checks.ts's.
 */

/** Nothing measured (a check that found its submission gone, a row written before its outcome). */
export const NO_METRICS: SessionMetrics = {
  recordingMs: null,
  talkPct: null,
  longestIdleMs: null,
  itemsTotal: 0,
  itemsCovered: 0,
  maxContainment: null,
};

export interface Stretch {
  startMs: number;
  endMs: number;
}

/** What the recording showed (null: no recording attached). */
export interface RecordingEvidence {
  /** null: the length could not be measured. */
  durationMs: number | null;
  silences: Stretch[];
  stills: Stretch[];
}

export interface SessionEvidence {
  recordingRequired: boolean;
  recording: RecordingEvidence | null;
  /** How many things to check the job lists. */
  requirementsCount: number;
  responses: ReadonlyArray<{ requirement_index: number; response_text: string }>;
  /** Each finding's moment and, where given, the thing to check it answers. */
  findings: ReadonlyArray<{ at_ms: number | null; requirement_index?: number | null }>;
  /** This report's own words. */
  text: string;
  /** The texts it must not repeat: the tester's earlier reports, the job's or pack's others, the example. */
  others: readonly string[];
}

export interface SessionOutcome {
  verdict: SessionVerdict;
  reasons: SessionCheckReason[];
  metrics: SessionMetrics;
}

/** A finding's moment may sit up to this far past ffprobe's end (the last frame). */
const MOMENT_SLACK_MS = 1000;

/** The stretches, merged where they touch or overlap, in order. */
function merged(list: readonly Stretch[]): Stretch[] {
  const sorted = [...list].filter((s) => s.endMs > s.startMs).sort((a, b) => a.startMs - b.startMs);
  const out: Stretch[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.startMs <= last.endMs) last.endMs = Math.max(last.endMs, s.endMs);
    else out.push({ ...s });
  }
  return out;
}

/** Time with sound above the silence level, within the recording. */
export function talkMs(durationMs: number, silences: readonly Stretch[]): number {
  const silent = merged(silences).reduce(
    (acc, s) => acc + Math.max(0, Math.min(s.endMs, durationMs) - Math.max(s.startMs, 0)),
    0,
  );
  return Math.max(0, durationMs - silent);
}

/** The longest stretch that is both silent and still (nobody talks, nothing changes on screen). */
export function longestIdleMs(silences: readonly Stretch[], stills: readonly Stretch[]): number {
  const a = merged(silences);
  const b = merged(stills);
  let longest = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = Math.max(a[i].startMs, b[j].startMs);
    const end = Math.min(a[i].endMs, b[j].endMs);
    longest = Math.max(longest, end - start);
    if (a[i].endMs < b[j].endMs) i++;
    else j++;
  }
  return longest;
}

/** Things to check with an answer (a response with text) or a finding that names them. */
export function itemsCovered(
  requirementsCount: number,
  responses: SessionEvidence['responses'],
  findings: SessionEvidence['findings'],
): number {
  const covered = new Set<number>();
  for (const r of responses) if (r.response_text.trim()) covered.add(r.requirement_index);
  for (const f of findings)
    if (typeof f.requirement_index === 'number') covered.add(f.requirement_index);
  return [...covered].filter((i) => i >= 0 && i < requirementsCount).length;
}

// ---- originality: MinHash over three-word phrases ----

/** Words of a text, lower-case, letters and digits only. */
const words = (text: string): string[] =>
  text
    .toLowerCase()
    .normalize('NFKC')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Hash values stay below 2^26 so the library's (a·x + b) mod p stays exact in doubles. */
const MAX_HASH = 2 ** 26;
/** FNV-1a, 32 bits, folded into MAX_HASH. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % MAX_HASH;
}

/** The text's distinct three-word phrases, hashed. */
export function shingles(text: string): number[] {
  const w = words(text);
  const out = new Set<number>();
  for (let i = 0; i + 3 <= w.length; i++) out.add(fnv1a(`${w[i]} ${w[i + 1]} ${w[i + 2]}`));
  return [...out];
}

/**
 * 128 hash functions: the Jaccard estimate's standard error is at most 0.045. The factory draws
 * its functions at random, so signatures compare only within one factory (one per process; none
 * is stored).
 */
const minHashes = new bloomFilters.MinHashFactory(128, MAX_HASH);

/**
 * The largest share of `text`'s phrases found in one of `others` (0-1), estimated from MinHash
 * signatures: the library estimates the Jaccard index J of the two phrase sets, and with their
 * sizes |A| and |B| the part of A inside B is J(|A|+|B|) / ((1+J)|A|). Null when the text is too
 * short to judge (fewer than `minShingles` phrases).
 */
export function maxContainment(
  text: string,
  others: readonly string[],
  minShingles: number,
): number | null {
  const a = shingles(text);
  if (a.length < Math.max(1, minShingles)) return null;
  const sigA = minHashes.create();
  sigA.bulkLoad(a);
  let best = 0;
  for (const other of others) {
    const b = shingles(other);
    if (!b.length) continue;
    const sigB = minHashes.create();
    sigB.bulkLoad(b);
    const j = sigA.compareWith(sigB);
    best = Math.max(best, Math.min(1, (j * (a.length + b.length)) / ((1 + j) * a.length)));
  }
  return Math.round(best * 100) / 100;
}

// ---- the outcome ----

/**
 * The reasons, verdict and measured facts of one session. Recording rules: `no_recording` and
 * `recording_short` only when the job asks for a recording; talk time and idle stretches judge any
 * recording attached (it is what the owner will watch).
 */
export function evaluateSession(e: SessionEvidence, t: SessionCheckThresholds): SessionOutcome {
  const reasons: SessionCheckReason[] = [];
  const rec = e.recording;
  const duration = rec?.durationMs ?? null;
  let talkPct: number | null = null;
  let idle: number | null = null;
  if (!rec) {
    if (e.recordingRequired) reasons.push('no_recording');
  } else if (duration !== null) {
    if (e.recordingRequired && duration < t.minRecordingMs) reasons.push('recording_short');
    talkPct = duration > 0 ? Math.round((talkMs(duration, rec.silences) * 100) / duration) : 0;
    if (talkPct < t.minTalkPct) reasons.push('little_talk');
    idle = longestIdleMs(rec.silences, rec.stills);
    if (idle > t.maxIdleMs) reasons.push('idle_stretch');
  }
  const covered = itemsCovered(e.requirementsCount, e.responses, e.findings);
  if (covered < e.requirementsCount) reasons.push('unanswered');
  if (
    duration !== null &&
    e.findings.some((f) => f.at_ms !== null && f.at_ms > duration + MOMENT_SLACK_MS)
  )
    reasons.push('moment_outside');
  const containment = maxContainment(e.text, e.others, t.minShingles);
  if (containment !== null && containment >= t.duplicateContainment) reasons.push('copied_text');
  return {
    verdict: sessionVerdict(reasons),
    reasons,
    metrics: {
      recordingMs: duration,
      talkPct,
      longestIdleMs: idle,
      itemsTotal: e.requirementsCount,
      itemsCovered: covered,
      maxContainment: containment,
    },
  };
}

/** A report's own words, as the originality check reads them. */
export function reportText(s: {
  keyFindings: readonly string[];
  findingDetails?: ReadonlyArray<{
    steps?: string | null;
    expected?: string | null;
    actual?: string | null;
  }>;
  requirementResponses: ReadonlyArray<{ response_text: string }>;
  generalFeedback: string | null;
}): string {
  return [
    ...s.keyFindings,
    ...(s.findingDetails ?? []).flatMap((d) => [d.steps, d.expected, d.actual]),
    ...s.requirementResponses.map((r) => r.response_text),
    s.generalFeedback,
  ]
    .filter((x): x is string => !!x)
    .join('\n');
}
