import { z } from 'zod';

/**
 * Structured key findings (issue #30, section 2): each key finding of either Submit Work variant
 * may carry a severity, steps to reproduce, expected/actual and a moment of the recording. All
 * optional; the variants' own fields, rules and messages are unchanged (jobs.ts).
 */

/** Nielsen's severity scale in words, worst first (the poster's results sort by it). */
export const FINDING_SEVERITIES = ['blocker', 'major', 'minor', 'cosmetic'] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

export const FINDING_SEVERITY_LABELS: Record<FindingSeverity, string> = {
  blocker: 'Blocker: stops people from finishing',
  major: 'Major: hard to get past',
  minor: 'Minor: annoying, easy to get past',
  cosmetic: 'Cosmetic: looks wrong, works',
};

export const FINDING_LIMITS = {
  stepsMax: 1000,
  expectedMax: 300,
  actualMax: 300,
  /** 24 hours: far beyond any recording (RECORDING_MAX_MS), keeps the number in range. */
  atMsMax: 86_400_000,
} as const;

export const FINDING_MESSAGES = {
  severityInvalid: (n: number) =>
    `Finding ${n}: severity must be blocker, major, minor or cosmetic`,
  stepsTooLong: (n: number) =>
    `Finding ${n}: steps to reproduce must be ${FINDING_LIMITS.stepsMax} characters or less`,
  expectedTooLong: (n: number) =>
    `Finding ${n}: what you expected must be ${FINDING_LIMITS.expectedMax} characters or less`,
  actualTooLong: (n: number) =>
    `Finding ${n}: what happened must be ${FINDING_LIMITS.actualMax} characters or less`,
  atMsInvalid: (n: number) =>
    `Finding ${n}: the moment must be a whole number of milliseconds from 0`,
  atMsBeyondRecording: (n: number) => `Finding ${n}: the moment is after the end of the recording`,
  detailsWithoutText: (n: number) => `Finding ${n}: write the finding itself before its details`,
  requirementInvalid: (n: number) =>
    `Finding ${n}: the thing to check must be one of this job's things to check`,
} as const;

/** One finding as the poster reads it (GET /api/jobs/{id}/submission `findings`). */
export const findingViewSchema = z.object({
  text: z.string(),
  severity: z.enum(FINDING_SEVERITIES).nullable(),
  steps: z.string().nullable(),
  expected: z.string().nullable(),
  actual: z.string().nullable(),
  at_ms: z.number().nullable(),
  /** The thing to check it belongs to (index into the job's requirements), or null (issue #51). */
  requirement_index: z.number().int().nullable().optional(),
});
export type FindingView = z.infer<typeof findingViewSchema>;

/** The details stored beside a finding (its text stays in key_findings). */
export type FindingDetails = Omit<FindingView, 'text'>;

export const EMPTY_FINDING_DETAILS: FindingDetails = {
  severity: null,
  steps: null,
  expected: null,
  actual: null,
  at_ms: null,
  requirement_index: null,
};

const optionalText = (max: number, message: string) =>
  z
    .string({ error: message })
    // Multipart bodies send line breaks as CRLF; they are stored (and counted) as one character.
    .transform((v) => v.replace(/\r\n?/g, '\n').trim())
    .pipe(z.string().max(max, { error: message }))
    .optional()
    .nullable()
    .transform((v) => (v ? v : null));

const detailFields = (n: number) => ({
  severity: z
    .string({ error: FINDING_MESSAGES.severityInvalid(n) })
    .trim()
    .optional()
    .nullable()
    .transform((v) => (v ? v.toLowerCase() : null))
    .pipe(z.enum(FINDING_SEVERITIES, { error: FINDING_MESSAGES.severityInvalid(n) }).nullable()),
  steps: optionalText(FINDING_LIMITS.stepsMax, FINDING_MESSAGES.stepsTooLong(n)),
  expected: optionalText(FINDING_LIMITS.expectedMax, FINDING_MESSAGES.expectedTooLong(n)),
  actual: optionalText(FINDING_LIMITS.actualMax, FINDING_MESSAGES.actualTooLong(n)),
  at_ms: z
    .union([z.string(), z.number()], { error: FINDING_MESSAGES.atMsInvalid(n) })
    .optional()
    .nullable()
    .transform((v, ctx) => {
      if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return null;
      const num = typeof v === 'number' ? v : /^\s*\d+\s*$/.test(v) ? Number(v) : Number.NaN;
      if (!Number.isInteger(num) || num < 0 || num > FINDING_LIMITS.atMsMax) {
        ctx.addIssue({ code: 'custom', message: FINDING_MESSAGES.atMsInvalid(n) });
        return z.NEVER;
      }
      return num;
    }),
  requirement_index: z
    .union([z.string(), z.number()], { error: FINDING_MESSAGES.requirementInvalid(n) })
    .optional()
    .nullable()
    .transform((v, ctx) => {
      if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return null;
      const num = typeof v === 'number' ? v : /^\s*\d+\s*$/.test(v) ? Number(v) : Number.NaN;
      // The job's own count is checked by the service (a job has at most 10 things to check).
      if (!Number.isInteger(num) || num < 0 || num >= 10) {
        ctx.addIssue({ code: 'custom', message: FINDING_MESSAGES.requirementInvalid(n) });
        return z.NEVER;
      }
      return num;
    }),
});

/** The multipart names of finding N's details in each variant (issue #30 "Contracts"). */
export const findingFieldPrefix = (variant: 'dashboard' | 'poster_flow', n: number) =>
  variant === 'dashboard' ? `key_finding_${n}` : `key_findings_bullet_${n}`;
export const FINDING_DETAIL_KEYS = [
  'severity',
  'steps',
  'expected',
  'actual',
  'at_ms',
  'requirement_index',
] as const;

/**
 * The details of findings 1-3 of one variant, from the flat multipart fields
 * (`key_finding_2_severity`, `key_findings_bullet_1_at_ms`, ...). Errors name the field.
 * Output: three FindingDetails, finding 1 first (empty details where none were sent).
 */
export function findingDetailsSchema(variant: 'dashboard' | 'poster_flow') {
  const shape: Record<string, z.ZodType> = {};
  for (const n of [1, 2, 3]) {
    const f = detailFields(n);
    for (const key of FINDING_DETAIL_KEYS)
      shape[`${findingFieldPrefix(variant, n)}_${key}`] = f[key];
  }
  return z.object(shape).transform((v) =>
    [1, 2, 3].map((n): FindingDetails => {
      const p = findingFieldPrefix(variant, n);
      return {
        severity: (v[`${p}_severity`] as FindingSeverity | null | undefined) ?? null,
        steps: (v[`${p}_steps`] as string | null | undefined) ?? null,
        expected: (v[`${p}_expected`] as string | null | undefined) ?? null,
        actual: (v[`${p}_actual`] as string | null | undefined) ?? null,
        at_ms: (v[`${p}_at_ms`] as number | null | undefined) ?? null,
        requirement_index: (v[`${p}_requirement_index`] as number | null | undefined) ?? null,
      };
    }),
  );
}

export const hasFindingDetails = (d: FindingDetails) =>
  d.severity !== null ||
  d.steps !== null ||
  d.expected !== null ||
  d.actual !== null ||
  d.at_ms !== null ||
  d.requirement_index != null;

/** Severity order for the poster's results: blocker first, findings without a severity last (stable). */
export function sortFindingsBySeverity<T extends { severity: FindingSeverity | null }>(
  findings: T[],
): T[] {
  const rank = (s: FindingSeverity | null) =>
    s ? FINDING_SEVERITIES.indexOf(s) : FINDING_SEVERITIES.length;
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f.severity) - rank(b.f.severity) || a.i - b.i)
    .map((x) => x.f);
}

/** The recording attached to a submission (GET /api/jobs/{id}/submission `recording`). */
export const recordingViewSchema = z.object({
  id: z.string(),
  url: z.string(),
  mime_type: z.string(),
  duration_ms: z.number().nullable(),
  size_bytes: z.number(),
});
export type RecordingView = z.infer<typeof recordingViewSchema>;

/**
 * What the web app's recorder must respect (GET /api/tester/my-jobs `recording_limits`): the jobs
 * service's RECORDING_MAX_MS (the recorder stops itself there) and RECORDING_MAX_BYTES.
 */
export const recordingLimitsSchema = z.object({ max_ms: z.number(), max_bytes: z.number() });
export type RecordingLimits = z.infer<typeof recordingLimitsSchema>;

/** The jobs service's defaults, used by the web app until the tester's job list has answered. */
export const DEFAULT_RECORDING_LIMITS: RecordingLimits = {
  max_ms: 10 * 60_000,
  max_bytes: 500 * 1024 * 1024,
};

/** Screen recordings (tus uploads at /api/recordings): what the service answers and the web app shows. */
export const RECORDING_MESSAGES = {
  notYourJob: 'Only the tester holding this job can upload a recording for it.',
  notYourUpload: 'This recording belongs to someone else.',
  notFound: 'Recording not found.',
  jobIdRequired: 'Upload-Metadata must name the job_id the recording is for.',
  notVideo: 'Recordings must be videos (WebM or MP4).',
  notVideoContent: 'This file is not a WebM or MP4 video, so it was deleted.',
  tooLarge: (maxBytes: number) =>
    `Recording size must be less than ${Math.round(maxBytes / (1024 * 1024))}MB`,
  unknownRecording: 'This recording is not one of yours for this job. Please record again.',
  stillUploading: 'The recording is still uploading. Please wait until it has finished.',
  cannotSee: 'You cannot see this recording.',
  tooManyUploads: (n: number, of: 'tester' | 'job') =>
    of === 'tester'
      ? `You already have ${n} recording${n === 1 ? '' : 's'} uploading. Let ${n === 1 ? 'it' : 'them'} finish before starting another (unfinished uploads are cleared after 24 hours).`
      : `This job already has ${n} recording${n === 1 ? '' : 's'} uploading. Let ${n === 1 ? 'it' : 'them'} finish before starting another (unfinished uploads are cleared after 24 hours).`,
  testerQuota: (maxBytes: number) =>
    `Your recordings not yet submitted would take more than ${mib(maxBytes)}. Submit your work with one of them, or record a shorter one (unused recordings are cleared after 24 hours).`,
  jobQuota: (maxBytes: number) =>
    `This job's recordings would take more than the ${mib(maxBytes)} allowed per job. Submit with a recording you already made, or record a shorter one.`,
  storageFull:
    'Recordings cannot be stored right now: the space set aside for them is full. Please try again later; you can submit your work without a recording.',
} as const;

/** Bytes in words: 4.5 MB, 500 MB, 1.5 GB (binary units, as the limits are set). */
function mib(bytes: number): string {
  const gb = bytes >= 1024 * 1024 * 1024;
  const n = bytes / (gb ? 1024 * 1024 * 1024 : 1024 * 1024);
  return `${Math.round(n * 10) / 10} ${gb ? 'GB' : 'MB'}`;
}
