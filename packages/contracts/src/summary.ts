import { z } from 'zod';
import { FINDING_SEVERITIES } from './findings.js';
import { SITE_CHECK_IMPACTS, SITE_CHECK_TOPICS } from './site-check.js';

/**
 * "The report gives a verdict" (issue #51): the summary at the top of a job's or a pack's report
 * (GET /api/jobs/{id}/summary, GET /api/packs/{id}/summary), and the task metrics it is built from.
 */

/** What a tester answers per thing to check: did they get it done? */
export const TASK_OUTCOMES = ['done', 'partly', 'not_done'] as const;
export type TaskOutcome = (typeof TASK_OUTCOMES)[number];

/**
 * Single Ease Question: "Overall, how difficult or easy was the task to complete?" on 7 points
 * (1 very difficult, 7 very easy). SEQ_AVERAGE: the published average across tasks (Sauro, 5.5).
 */
export const SEQ_SCALE = { min: 1, max: 7 } as const;
export const SEQ_AVERAGE = 5.5;

/** System Usability Scale: 10 statements, each 1 (strongly disagree) to 5 (strongly agree). */
export const SUS_QUESTIONS = [
  'I think that I would like to use this website frequently.',
  'I found the website unnecessarily complex.',
  'I thought the website was easy to use.',
  'I think that I would need the support of a technical person to be able to use this website.',
  'I found the various functions in this website were well integrated.',
  'I thought there was too much inconsistency in this website.',
  'I would imagine that most people would learn to use this website very quickly.',
  'I found the website very cumbersome to use.',
  'I felt very confident using the website.',
  'I needed to learn a lot of things before I could get going with this website.',
] as const;
export const SUS_SCALE = { min: 1, max: 5 } as const;
/** The published average SUS score (Sauro and Lewis, from some 500 studies). */
export const SUS_AVERAGE = 68;

/** What a report says beside a problem the machine health check confirms. */
export const HEALTH_CHECK_TOO = 'The health check found this too';

/** The most a summary lists, and the words its first screen may hold. */
export const SUMMARY_LIMITS = {
  problems: 5,
  firstScreenWords: 200,
  titleWords: 20,
  workedItems: 3,
  /** Reel clip around a moment: from 5 s before to 10 s after; the whole reel at most 90 s. */
  clipBeforeMs: 5_000,
  clipAfterMs: 10_000,
  reelMaxMs: 90_000,
} as const;

export const TASK_MESSAGES = {
  answersInvalid:
    'Task answers must be a list of {requirement_index, outcome, seq, minutes} (all but the index optional)',
  requirementInvalid: "Each task answer must name a different one of this job's things to check",
  outcomeInvalid: 'Did you get it done: choose done, partly or not done',
  seqInvalid: `How easy it was must be a whole number from ${SEQ_SCALE.min} to ${SEQ_SCALE.max}`,
  minutesInvalid: 'Minutes on a task must be a whole number from 1 to 240',
  susInvalid: `The usability questionnaire needs all ${SUS_QUESTIONS.length} answers, each a whole number from ${SUS_SCALE.min} to ${SUS_SCALE.max} (or none)`,
} as const;

/** Labels of the answers the tester picks (Submit Work, both variants). */
export const TASK_OUTCOME_LABELS: Record<TaskOutcome, string> = {
  done: 'Done',
  partly: 'Partly',
  not_done: 'Not done',
};
export const SEQ_QUESTION = 'Overall, how difficult or easy was this to do?';
export const SEQ_ENDS = { min: 'Very difficult', max: 'Very easy' } as const;
export const SUS_ENDS = { min: 'Strongly disagree', max: 'Strongly agree' } as const;

const optionalInt = (min: number, max: number, message: string) =>
  z
    .union([z.number(), z.string().trim()], { error: message })
    .optional()
    .nullable()
    .transform((v, ctx) => {
      if (v === undefined || v === null || v === '') return null;
      const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Number.NaN;
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return n;
    });

/**
 * One thing to check as the tester did it (optional, both Submit Work variants; multipart field
 * `task_answers`, a JSON list): did they get it done, how easy it was (SEQ, 1-7), minutes on it.
 */
export const taskAnswerSchema = z.object({
  requirement_index: z
    .number({ error: TASK_MESSAGES.requirementInvalid })
    .int({ error: TASK_MESSAGES.requirementInvalid })
    .min(0, { error: TASK_MESSAGES.requirementInvalid }),
  outcome: z
    .enum(TASK_OUTCOMES, { error: TASK_MESSAGES.outcomeInvalid })
    .optional()
    .nullable()
    .transform((v) => v ?? null),
  seq: optionalInt(SEQ_SCALE.min, SEQ_SCALE.max, TASK_MESSAGES.seqInvalid),
  minutes: optionalInt(1, 240, TASK_MESSAGES.minutesInvalid),
});
export type TaskAnswerView = z.infer<typeof taskAnswerSchema>;

/** The task answers: at most one per thing to check; answers with nothing in them are dropped. */
export const taskAnswersSchema = z
  .array(taskAnswerSchema, { error: TASK_MESSAGES.answersInvalid })
  .max(10, { error: TASK_MESSAGES.answersInvalid })
  .transform((list) =>
    list.filter((a) => a.outcome !== null || a.seq !== null || a.minutes !== null),
  );

/** The 10 SUS answers, all or none (multipart field `sus`, a JSON list). */
export const susAnswersSchema = z
  .array(
    z
      .number({ error: TASK_MESSAGES.susInvalid })
      .int({ error: TASK_MESSAGES.susInvalid })
      .min(SUS_SCALE.min, { error: TASK_MESSAGES.susInvalid })
      .max(SUS_SCALE.max, { error: TASK_MESSAGES.susInvalid }),
    { error: TASK_MESSAGES.susInvalid },
  )
  .length(SUS_QUESTIONS.length, { error: TASK_MESSAGES.susInvalid });

/** Both Submit Work variants' optional task fields, parsed from their JSON (errors name the field). */
export const taskFieldsSchema = z.object({
  task_answers: taskAnswersSchema.optional().transform((v) => v ?? []),
  sus: susAnswersSchema.optional().transform((v) => v ?? null),
});

export const summaryEvidenceSchema = z.object({
  submission_id: z.string(),
  /** The finding's place in its submission's key findings. */
  finding_index: z.number().int(),
  at_ms: z.number().int().nullable(),
  screenshot_url: z.string().nullable(),
  /** Set when read: the finding in its tester's own words. */
  text: z.string().optional(),
  /** Set when read: who wrote it (a first name). */
  tester: z.string().optional(),
  /** Set when read: where its moment plays (the tester's recording, HTTP Range), when there is one. */
  recording_url: z.string().nullable().optional(),
});
export type SummaryEvidence = z.infer<typeof summaryEvidenceSchema>;

export const summaryProblemSchema = z.object({
  title: z.string(),
  severity: z.enum(FINDING_SEVERITIES).nullable(),
  testers_hit: z.number().int(),
  testers_total: z.number().int(),
  /** The thing to check it belongs to (index into the job's requirements), when known. */
  requirement_index: z.number().int().nullable(),
  evidence: z.array(summaryEvidenceSchema),
  /**
   * The job's machine health check found this too (issue #53's findings matching the problem's
   * words, worst first): shown as HEALTH_CHECK_TOO. Absent in summaries stored before it existed.
   */
  machine_findings: z
    .array(
      z.object({
        key: z.string(),
        topic: z.enum(SITE_CHECK_TOPICS),
        impact: z.enum(SITE_CHECK_IMPACTS),
        text: z.string(),
      }),
    )
    .optional(),
});
export type SummaryProblem = z.infer<typeof summaryProblemSchema>;

export const summaryTaskSchema = z.object({
  requirement_index: z.number().int(),
  text: z.string(),
  /** done = 1, partly = 0.5, not done = 0, over the testers who answered; null when none did. */
  success_rate: z.number().nullable(),
  seq_mean: z.number().nullable(),
  median_time_ms: z.number().nullable(),
  /** Testers who said whether they got it done. */
  n: z.number().int(),
  /** Testers who rated its ease (SEQ): the mean's own count. */
  seq_n: z.number().int(),
  /** One plain sentence about it ("Easier than most sites (5.9 of 7, 3 testers)"). */
  sentence: z.string(),
  /**
   * A re-test: the same metrics of the original job's accepted report (before), beside this one's
   * (after); absent on other jobs.
   */
  before: z
    .object({
      success_rate: z.number().nullable(),
      seq_mean: z.number().nullable(),
      median_time_ms: z.number().nullable(),
      n: z.number().int(),
    })
    .nullable()
    .optional(),
});
export type SummaryTask = z.infer<typeof summaryTaskSchema>;

export const summaryReelClipSchema = z.object({
  recording_id: z.string(),
  start_ms: z.number().int(),
  end_ms: z.number().int(),
  caption: z.string(),
  /** Where the player fetches the recording (a signed link, HTTP Range); set when read. */
  url: z.string().optional(),
});
export type SummaryReelClip = z.infer<typeof summaryReelClipSchema>;

export const reportSummarySchema = z.object({
  generated_at: z.string(),
  problems: z.array(summaryProblemSchema),
  worked: z.array(z.string()),
  tasks: z.array(summaryTaskSchema),
  sus: z.object({ mean: z.number(), n: z.number().int(), sentence: z.string() }).nullable(),
  reel: z.array(summaryReelClipSchema),
  /**
   * The reader is the poster and some report in it is not accepted yet: like the submission view,
   * its checklist, task answers and SUS stay locked, so tasks, worked and sus count only the
   * accepted reports (problems, moments and the reel come from the findings, shown while locked).
   */
  locked: z.boolean().optional(),
});
export type ReportSummary = z.infer<typeof reportSummarySchema>;

/** A finding of a report, by its submission and place (the summary's evidence names them so). */
export const findingRefSchema = z.object({
  submission_id: z
    .string({ error: 'submission_id is required' })
    .uuid({ error: 'submission_id must be a report of this pack' }),
  finding_index: z
    .number({ error: 'finding_index must be a whole number from 0' })
    .int({ error: 'finding_index must be a whole number from 0' })
    .min(0, { error: 'finding_index must be a whole number from 0' }),
});
export type FindingRef = z.infer<typeof findingRefSchema>;

/**
 * POST /api/packs/{id}/groups (the owner): merge findings into one problem, or split one finding
 * from the others of its problem. The choice holds through every recomputation.
 */
export const regroupBodySchema = z.discriminatedUnion(
  'action',
  [
    z.object({
      action: z.literal('merge'),
      findings: z
        .array(findingRefSchema, { error: 'Name at least two findings to merge' })
        .min(2, { error: 'Name at least two findings to merge' })
        .max(50, { error: 'Name at most 50 findings' }),
    }),
    z.object({
      action: z.literal('split'),
      finding: findingRefSchema,
      from: z
        .array(findingRefSchema, { error: 'Name the findings it is not the same as' })
        .min(1, { error: 'Name the findings it is not the same as' })
        .max(50, { error: 'Name at most 50 findings' }),
    }),
  ],
  { error: 'action must be merge or split' },
);
export type RegroupBody = z.infer<typeof regroupBodySchema>;
export const regroupResponseSchema = z.object({ requested: z.literal(true) });

/** The "same problem?" step of Submit Work: how many of the pack's findings are shown per finding, and how close they must be. */
export const CLOSEST_FINDINGS = {
  perText: 3,
  minSimilarity: 0.15,
  texts: 3,
  textMax: 500,
} as const;

const CLOSEST_TEXTS_MESSAGE = `Send 1 to ${CLOSEST_FINDINGS.texts} findings you wrote, each at most ${CLOSEST_FINDINGS.textMax} characters`;

/**
 * POST /api/jobs/{id}/closest-findings (the tester holding a pack's slot, after writing their own
 * findings): the texts of their findings.
 */
export const closestFindingsBodySchema = z.object({
  texts: z
    .array(
      z
        .string({ error: CLOSEST_TEXTS_MESSAGE })
        .max(CLOSEST_FINDINGS.textMax, { error: CLOSEST_TEXTS_MESSAGE }),
      { error: CLOSEST_TEXTS_MESSAGE },
    )
    .min(1, { error: CLOSEST_TEXTS_MESSAGE })
    .max(CLOSEST_FINDINGS.texts, { error: CLOSEST_TEXTS_MESSAGE }),
});
export type ClosestFindingsBody = z.infer<typeof closestFindingsBodySchema>;

/** Another tester's finding of the same pack, close to one the tester wrote. */
export const closestFindingSchema = z.object({
  /** What key_finding_N_same_as (key_findings_bullet_N_same_as) takes: `<submission_id>:<finding_index>`. */
  same_as: z.string(),
  text: z.string(),
  severity: z.enum(FINDING_SEVERITIES).nullable(),
});
export type ClosestFinding = z.infer<typeof closestFindingSchema>;

/** Per text sent (in its order): the closest findings of the pack's other testers, closest first. */
export const closestFindingsResponseSchema = z.object({
  closest: z.array(z.array(closestFindingSchema)),
});
export type ClosestFindingsResponse = z.infer<typeof closestFindingsResponseSchema>;

export const SUMMARY_MESSAGES = {
  unknownFinding: 'Each finding must be one of the current reports of this pack.',
  sameAsInvalid: (n: number) =>
    `Finding ${n}: "same problem" must name a finding of another tester's report in this pack`,
  noSubmission: 'No work has been submitted for this yet, so there is no summary.',
  pending: 'The summary is being prepared. Please try again in a few seconds.',
  notAllowed: 'You cannot see the summary of this report.',
  notYourSlot: 'Only the tester working on this job can compare findings with its pack.',
} as const;
