import { createHash } from 'node:crypto';
import { createEvent } from '@htm/events';
import { AppError, type Caller } from '@htm/service-kit';
import type { Tx } from '@htm/service-kit/db';
import {
  CLOSEST_FINDINGS,
  SUMMARY_MESSAGES,
  type ClosestFindingsBody,
  type ClosestFindingsResponse,
  type FindingRef,
  type FindingSeverity,
  type RegroupBody,
  type ReportSummary,
  type SiteCheckFinding,
  type SummaryTask,
  type WebhookPayload,
} from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import type { JobRow, SubmissionRow } from '../db/schema.js';
import { findJob } from '../db/job.repository.js';
import { getJob } from './job-state.js';
import { findPack, listPackJobs } from '../db/pack.repository.js';
import { filesByIds, findSubmission } from '../db/submission.repository.js';
import { releasedOtherReportIds } from '../db/session-check.repository.js';
import {
  decideFindingPairs,
  findSummary,
  findingLinksOf,
  recordingsByIds,
  requestSummary,
  storeSummary,
  summarySubmissions,
  type FindingKey,
  type SummaryLease,
} from '../db/summary.repository.js';
import { endpointsFor, enqueueDelivery } from '../db/webhook.repository.js';
import {
  byIndex,
  centralMember,
  closestFindings,
  findingKey,
  groupFindings,
  type FindingDecision,
  type Lexicon,
} from './finding-clusters.js';
import { recordingUrl } from './recordings.js';
import { readHealthCheck } from './health-check.js';
import { lockedForPoster } from './review/read-submission.js';
import {
  summarize,
  taskMetrics,
  type SummaryInput,
  type SummarySubmission,
  type TaskAnswer,
} from './report-summary.js';

/**
 * "The report gives a verdict" (issue #51): each job's and each pack's summary is stored and
 * computed off the request path. A change to what a summary is made of asks for it in its own
 * transaction (requestSummaryOf: a submission, an acceptance, a release, an accepted appeal, a
 * "same problem" decision); every jobs process leases the waiting ones (workers/summaries.ts),
 * computes them here and stores each with ReportSummarized and its webhooks in one transaction.
 * The same input gives the same summary: nothing new is stored or announced.
 */

/** The testers' and the owner's decisions about findings of these reports in a scope. */
export async function decisionsOf(
  deps: Pick<JobsDeps, 'db'>,
  scopeId: string,
  submissionIds: string[],
): Promise<FindingDecision[]> {
  const links = await findingLinksOf(deps.db, scopeId, submissionIds);
  return links.map((l) => ({
    a: { submissionId: l.aSubmissionId, index: l.aIndex },
    b: { submissionId: l.bSubmissionId, index: l.bIndex },
    same: l.same,
    by: l.decidedBy === 'owner' ? 'owner' : 'tester',
  }));
}

/** The summaries a change of this job alters: its own, and its pack's. */
export async function requestSummaryOf(tx: Tx, job: Pick<JobRow, 'id' | 'packId'>): Promise<void> {
  await requestSummary(tx, job.id, 'job');
  if (job.packId) await requestSummary(tx, job.packId, 'pack');
}

/** What is stored: the full summary, the poster's view of its locked parts, and the screenshots by submission. */
export interface StoredSummary {
  full: ReportSummary;
  /** tasks, worked and sus over the accepted reports only (what a poster sees while some are locked). */
  accepted: Pick<ReportSummary, 'tasks' | 'worked' | 'sus'>;
  /** Submissions not accepted yet (locked for the poster). */
  lockedSubmissions: string[];
  /** Per submission: its preview image and its first original image (file ids). */
  screenshots: Record<string, { preview: string | null; image: string | null }>;
  jobIds: string[];
  posterId: string;
  title: string;
}

interface Scope {
  jobs: JobRow[];
  posterId: string;
  title: string;
  requirements: string[];
}

async function scopeOf(deps: Pick<JobsDeps, 'db'>, lease: SummaryLease): Promise<Scope | null> {
  if (lease.scope === 'pack') {
    const pack = await findPack(deps.db, lease.scopeId);
    const jobs = pack ? await listPackJobs(deps.db, pack.id) : [];
    if (!pack || !jobs.length) return null;
    return {
      jobs,
      posterId: pack.posterId,
      title: jobs[0].title,
      requirements: jobs[0].requirements,
    };
  }
  const job = await findJob(deps.db, lease.scopeId);
  if (!job) return null;
  return { jobs: [job], posterId: job.posterId, title: job.title, requirements: job.requirements };
}

const MINUTE = 60_000;

/**
 * The machine health check's findings of the scope's site (issue #53; a pack's site is checked
 * once, each slot told): the first done check of its jobs, else none.
 */
async function machineFindingsOf(
  deps: Pick<JobsDeps, 'db'>,
  jobs: JobRow[],
): Promise<SiteCheckFinding[]> {
  for (const job of jobs) {
    const check = await readHealthCheck(deps, job.id);
    if (check?.state === 'done' && check.summary) return check.summary.findings;
  }
  return [];
}

/** One report as the summary reads it (time on a task: its minutes, else the whole report's when the job has one thing to check). */
function summarySubmission(
  sub: SubmissionRow,
  requirements: string[],
  durations: Map<string, number | null>,
): SummarySubmission {
  const tasks: TaskAnswer[] = (sub.taskAnswers ?? []).map((a) => ({
    requirementIndex: a.requirement_index,
    outcome: a.outcome ?? null,
    seq: a.seq ?? null,
    timeMs:
      a.minutes != null
        ? a.minutes * MINUTE
        : requirements.length === 1 && sub.minutesSpent != null
          ? sub.minutesSpent * MINUTE
          : null,
  }));
  return {
    id: sub.id,
    findings: sub.keyFindings.map((text, i) => {
      const d = sub.findingDetails?.[i];
      return {
        text,
        severity: (d?.severity ?? null) as FindingSeverity | null,
        atMs: d?.at_ms ?? null,
        requirementIndex: d?.requirement_index ?? null,
      };
    }),
    screenshotUrl: null,
    recording:
      sub.recordingId && durations.has(sub.recordingId)
        ? { id: sub.recordingId, durationMs: durations.get(sub.recordingId) ?? null }
        : null,
    tasks,
    sus: sub.susAnswers ?? null,
  };
}

/**
 * The pure part of a computation (bench/summary.ts measures it): the findings in one list
 * (submission order, then finding order), grouped by people's decisions and language, each
 * group titled by its most central finding.
 */
export function summaryInputOf(
  lexicon: Lexicon,
  p: {
    now: Date;
    requirements: string[];
    submissions: SummarySubmission[];
    decided: FindingDecision[];
    machine: SiteCheckFinding[];
  },
): SummaryInput {
  const flat = p.submissions.flatMap((s, si) =>
    s.findings.map((f, fi) => ({ si, fi, text: f.text })),
  );
  const indexOf = new Map(flat.map((f, i) => [findingKey(p.submissions[f.si].id, f.fi), i]));
  const texts = flat.map((f) => f.text);
  const { groups, sim } = groupFindings(lexicon, texts, byIndex(p.decided, indexOf));
  return {
    generatedAt: p.now,
    requirements: p.requirements,
    submissions: p.submissions,
    groups: groups.map((g) => g.map((i) => ({ submission: flat[i].si, finding: flat[i].fi }))),
    titles: groups.map((g) => texts[centralMember(g, sim, texts)].trim()),
    machine: p.machine,
  };
}

/** The original job's accepted report beside a re-test's tasks (before → after). */
async function beforeOfRetest(
  deps: Pick<JobsDeps, 'db'>,
  job: JobRow,
): Promise<SummaryTask['before'][] | null> {
  if (!job.retestOf) return null;
  const original = await findJob(deps.db, job.retestOf);
  const sub = await findSubmission(deps.db, original?.currentSubmissionId ?? null);
  if (!original || !sub || !sub.acceptedAt || sub.held) return null;
  return taskMetrics(job.requirements, [summarySubmission(sub, job.requirements, new Map())]).map(
    (t) => ({
      success_rate: t.success_rate,
      seq_mean: t.seq_mean,
      median_time_ms: t.median_time_ms,
      n: t.n,
    }),
  );
}

/**
 * Computes the leased summary and stores it (with ReportSummarized and the report.summarized
 * webhooks when it changed). Answers what happened.
 */
export async function computeSummary(
  deps: JobsDeps,
  lease: SummaryLease,
  now = new Date(),
): Promise<'changed' | 'unchanged' | 'stale'> {
  const scope = await scopeOf(deps, lease);
  const currentIds = (scope?.jobs ?? [])
    .map((j) => j.currentSubmissionId)
    .filter((id): id is string => !!id);
  // A report released after its job went to another tester (#52: an upheld appeal, the admin's
  // release) counts like the job's own, and whole: the owner reads it unlocked.
  const releasedIds = new Set(await releasedOtherReportIds(deps.db, scope?.jobs ?? []));
  const subs = await summarySubmissions(deps.db, [...currentIds, ...releasedIds]);
  const locked = (s: SubmissionRow) => lockedForPoster(s) && !releasedIds.has(s.id);
  if (!scope || !subs.length) {
    return deps.events.inTransaction((tx) =>
      storeSummary(tx, lease, {
        inputHash: 'empty',
        summary: null,
        generatedAt: now,
        lastSubmissionAt: null,
      }),
    );
  }
  const recs = await recordingsByIds(
    deps.db,
    subs.map((s) => s.recordingId).filter((id): id is string => !!id),
  );
  const durations = new Map(
    recs.filter((r) => r.status === 'complete').map((r) => [r.id, r.durationMs ?? null]),
  );
  const files = await filesByIds(
    deps.db,
    subs.flatMap((s) => s.fileIds),
  );
  const images = new Map(
    files.filter((f) => f.contentType.startsWith('image/')).map((f) => [f.id, f]),
  );
  const input = subs.map((s) => summarySubmission(s, scope.requirements, durations));

  const summaryInput = summaryInputOf(deps.lexicon, {
    now,
    requirements: scope.requirements,
    submissions: input,
    decided: await decisionsOf(
      deps,
      lease.scopeId,
      subs.map((s) => s.id),
    ),
    machine: await machineFindingsOf(deps, scope.jobs),
  });
  const retestBefore = scope.jobs.length === 1 ? await beforeOfRetest(deps, scope.jobs[0]) : null;
  const withBefore = (s: ReportSummary): ReportSummary =>
    retestBefore
      ? { ...s, tasks: s.tasks.map((t, i) => ({ ...t, before: retestBefore[i] ?? null })) }
      : s;
  const full = withBefore(summarize(summaryInput));
  const acceptedOnly = withBefore(
    summarize({
      ...summaryInput,
      submissions: input.map((s, i) => (locked(subs[i]) ? { ...s, tasks: [], sus: null } : s)),
    }),
  );
  const stored: StoredSummary = {
    full: { ...full, generated_at: '' },
    accepted: { tasks: acceptedOnly.tasks, worked: acceptedOnly.worked, sus: acceptedOnly.sus },
    lockedSubmissions: subs.filter(locked).map((s) => s.id),
    screenshots: Object.fromEntries(
      subs.map((s) => [
        s.id,
        {
          preview: s.previewFileId ?? null,
          image: s.fileIds.find((id) => images.has(id)) ?? null,
        },
      ]),
    ),
    jobIds: scope.jobs.map((j) => j.id),
    posterId: scope.posterId,
    title: scope.title,
  };
  // The input is what the summary shows: the same input, the same hash, nothing new stored.
  const inputHash = createHash('sha256').update(JSON.stringify(stored)).digest('hex');
  const lastSubmissionAt = new Date(Math.max(...subs.map((s) => s.submittedAt.getTime())));
  stored.full.generated_at = now.toISOString();
  return deps.events.inTransaction(async (tx) => {
    const outcome = await storeSummary(tx, lease, {
      inputHash,
      summary: stored as unknown as Record<string, unknown>,
      generatedAt: now,
      lastSubmissionAt,
    });
    if (outcome !== 'changed') return outcome;
    const event = createEvent('ReportSummarized', lease.scopeId, {
      scope: lease.scope,
      scopeId: lease.scopeId,
      jobIds: stored.jobIds,
      posterId: stored.posterId,
      title: stored.title,
      testersTotal: subs.length,
      problems: full.problems.length,
      top: full.problems.slice(0, 3).map((p) => ({
        title: p.title,
        severity: p.severity,
        testersHit: p.testers_hit,
      })),
      lastSubmissionAt: lastSubmissionAt.toISOString(),
      summarizedAt: now.toISOString(),
    });
    await deps.events.record(tx, event);
    await enqueueSummaryWebhooks(tx, deps, stored, lease, event.id, full);
    return outcome;
  });
}

/** report.summarized: one delivery per endpoint of the poster that asks for it (fixed body). */
async function enqueueSummaryWebhooks(
  tx: Tx,
  deps: Pick<JobsDeps, 'config'>,
  stored: StoredSummary,
  lease: SummaryLease,
  eventId: string,
  full: ReportSummary,
): Promise<void> {
  const endpoints = await endpointsFor(tx, stored.posterId, 'report.summarized');
  if (!endpoints.length) return;
  const base = deps.config.PUBLIC_URL.replace(/\/+$/, '');
  const path = lease.scope === 'pack' ? 'packs' : 'jobs';
  const payload: WebhookPayload = {
    type: 'report.summarized',
    timestamp: new Date().toISOString(),
    data: {
      job_id: stored.jobIds[0],
      pack_id: lease.scope === 'pack' ? lease.scopeId : null,
      title: stored.title,
      status: 'summarized',
      report_url: `${base}/dashboard?job=${stored.jobIds[0]}`,
      summary_url: `${base}/api/${path}/${lease.scopeId}/summary`,
      problems: full.problems.slice(0, 3).map((p) => ({
        title: p.title,
        severity: p.severity,
        testers_hit: p.testers_hit,
        testers_total: p.testers_total,
      })),
    },
  };
  for (const e of endpoints)
    await enqueueDelivery(tx, {
      endpointId: e.id,
      eventId,
      eventType: 'report.summarized',
      payload: payload as unknown as Record<string, unknown>,
    });
}

/** Where a summary's screenshots and recordings are fetched: signed links, or a share link's token. */
export interface SummaryLinks {
  file(fileId: string): string;
  recording(recordingId: string): string;
}

/** Signed links for a signed-in reader (they expire; a share link gives lasting ones). */
export const signedSummaryLinks = (deps: Pick<JobsDeps, 'links' | 'config'>): SummaryLinks => ({
  file: (id) => deps.links.url(id),
  recording: (id) => recordingUrl(deps, id),
});

/**
 * The stored summary as one reader sees it: the poster's lock, and each piece of evidence with the
 * finding's own words, its tester's first name and where its moment plays (read now: a summary
 * stores places, not texts).
 */
export async function summaryView(
  deps: Pick<JobsDeps, 'db'>,
  stored: StoredSummary,
  posterReads: boolean,
  links: SummaryLinks,
): Promise<ReportSummary> {
  const locked = posterReads && stored.lockedSubmissions.length > 0;
  const lockedSet = new Set(posterReads ? stored.lockedSubmissions : []);
  const shot = (submissionId: string) => {
    const s = stored.screenshots[submissionId];
    if (!s) return null;
    // Like the submission view: while locked, only the preview image.
    const id = lockedSet.has(submissionId) ? s.preview : (s.image ?? s.preview);
    return id ? links.file(id) : null;
  };
  const full = stored.full;
  const subs = await summarySubmissions(deps.db, [
    ...new Set(full.problems.flatMap((p) => p.evidence.map((e) => e.submission_id))),
  ]);
  const recs = await recordingsByIds(
    deps.db,
    subs.map((s) => s.recordingId).filter((id): id is string => !!id),
  );
  const playable = new Set(recs.filter((r) => r.status === 'complete').map((r) => r.id));
  const bySub = new Map(subs.map((s) => [s.id, s]));
  return {
    ...full,
    problems: full.problems.map((p) => ({
      ...p,
      evidence: p.evidence.map((e) => {
        const sub = bySub.get(e.submission_id);
        const rec = sub?.recordingId && playable.has(sub.recordingId) ? sub.recordingId : null;
        return {
          ...e,
          screenshot_url: shot(e.submission_id),
          ...(sub
            ? {
                text: sub.keyFindings[e.finding_index] ?? '',
                tester: sub.submittedByName.trim().split(/\s+/)[0] ?? '',
                recording_url: rec ? links.recording(rec) : null,
              }
            : {}),
        };
      }),
    })),
    ...(locked ? stored.accepted : {}),
    reel: full.reel.map((c) => ({ ...c, url: links.recording(c.recording_id) })),
    locked,
  };
}

async function storedFor(
  deps: Pick<JobsDeps, 'db'>,
  scopeId: string,
  hasSubmission: boolean,
): Promise<StoredSummary> {
  if (!hasSubmission) throw AppError.notFound(SUMMARY_MESSAGES.noSubmission, 'no_submission');
  const row = await findSummary(deps.db, scopeId);
  if (!row?.summary) {
    if (row && row.computedSeq >= row.requestSeq)
      throw AppError.notFound(SUMMARY_MESSAGES.noSubmission, 'no_submission');
    throw AppError.notFound(SUMMARY_MESSAGES.pending, 'summary_pending');
  }
  return row.summary as unknown as StoredSummary;
}

/**
 * A job's or a pack's summary as its poster sees it (the lock included), for a share link and the
 * PDF: null until one is computed (those reports are shown without it).
 */
export async function posterSummary(
  deps: Pick<JobsDeps, 'db'>,
  scopeId: string,
  links: SummaryLinks,
): Promise<ReportSummary | null> {
  const row = await findSummary(deps.db, scopeId);
  if (!row?.summary) return null;
  return summaryView(deps, row.summary as unknown as StoredSummary, true, links);
}

/**
 * GET /api/jobs/:id/summary: the readers of the submission view (the job's poster, locked until
 * accepted; the tester who wrote the report; the admin). 404 until a report is in.
 */
export async function readJobSummary(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<ReportSummary> {
  const job = await getJob(deps.db, jobId);
  const sub = await findSubmission(deps.db, job.currentSubmissionId);
  const poster = caller.type === 'poster' && job.posterId === caller.id;
  const allowed =
    caller.type === 'admin' ||
    poster ||
    (caller.type === 'tester' && (sub ? sub.testerId === caller.id : job.testerId === caller.id));
  if (!allowed) throw AppError.forbidden(SUMMARY_MESSAGES.notAllowed, 'not_allowed');
  const stored = await storedFor(deps, job.id, !!sub && !sub.held);
  return summaryView(deps, stored, poster, signedSummaryLinks(deps));
}

/** GET /api/packs/:id/summary: the pack's poster and the admin. 404 until a report is in. */
export async function readPackSummary(
  deps: JobsDeps,
  caller: Caller,
  packId: string,
): Promise<ReportSummary> {
  const pack = await findPack(deps.db, packId);
  if (!pack) throw AppError.notFound('Pack not found.', 'pack_not_found');
  const poster = caller.type === 'poster' && pack.posterId === caller.id;
  if (caller.type !== 'admin' && !poster)
    throw AppError.forbidden('Only the poster of this pack can see it.', 'not_pack_poster');
  const jobs = await listPackJobs(deps.db, pack.id);
  const subs = await summarySubmissions(
    deps.db,
    jobs.map((j) => j.currentSubmissionId).filter((id): id is string => !!id),
  );
  const stored = await storedFor(deps, pack.id, subs.length > 0);
  return summaryView(deps, stored, poster, signedSummaryLinks(deps));
}

/**
 * POST /api/packs/:id/groups: the owner's merge (every pair of the named findings is the same
 * problem) or split (the finding is not the same as each of the others). Stored as the owner's
 * decisions, which replace any other on those pairs, and the pack's summary asked for again.
 */
export async function regroupPack(
  deps: JobsDeps,
  caller: Caller,
  packId: string,
  body: RegroupBody,
): Promise<void> {
  const pack = await findPack(deps.db, packId);
  if (!pack) throw AppError.notFound('Pack not found.', 'pack_not_found');
  if (caller.type !== 'admin' && pack.posterId !== caller.id)
    throw AppError.forbidden('Only the poster of this pack can see it.', 'not_pack_poster');
  const jobs = await listPackJobs(deps.db, pack.id);
  const subs = await summarySubmissions(
    deps.db,
    jobs.map((j) => j.currentSubmissionId).filter((id): id is string => !!id),
  );
  const findingsOf = new Map(subs.map((s) => [s.id, s.keyFindings.length]));
  const refs = body.action === 'merge' ? body.findings : [body.finding, ...body.from];
  for (const r of refs)
    if (!(r.finding_index < (findingsOf.get(r.submission_id) ?? 0)))
      throw AppError.invalid(SUMMARY_MESSAGES.unknownFinding, {
        findings: [SUMMARY_MESSAGES.unknownFinding],
      });
  const key = (r: FindingRef): FindingKey => ({
    submissionId: r.submission_id,
    index: r.finding_index,
  });
  const pairs: Array<[FindingKey, FindingKey]> =
    body.action === 'merge'
      ? body.findings.flatMap((a, i) =>
          body.findings.slice(i + 1).map((b) => [key(a), key(b)] as [FindingKey, FindingKey]),
        )
      : body.from.map((b) => [key(body.finding), key(b)] as [FindingKey, FindingKey]);
  await deps.events.inTransaction(async (tx) => {
    await decideFindingPairs(tx, pack.id, pairs, body.action === 'merge', 'owner', new Date());
    await requestSummary(tx, pack.id, 'pack');
  });
  // The owner is looking at "Fix first": computed now by this process's worker (well under a
  // second for a pack of 10) rather than at its next round, so the answer's refetch shows the new
  // grouping. Bounded: a slow computation finishes in the background and the page polls for it.
  if (deps.summaries) {
    let timer: NodeJS.Timeout | undefined;
    const worker = deps.summaries;
    await Promise.race([
      // A round already under way may have leased before this commit: then one more round.
      worker
        .computeDue()
        .then(() => worker.computeDue())
        .catch(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, REGROUP_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }
}

/** How long a regroup waits for the pack's summary to be computed again before it answers. */
const REGROUP_WAIT_MS = 5000;

/** The current reports of the other slots of the job's pack (none outside a pack), held ones left out. */
async function otherReportsOfPack(
  deps: Pick<JobsDeps, 'db'>,
  job: Pick<JobRow, 'id' | 'packId'>,
): Promise<SubmissionRow[]> {
  if (!job.packId) return [];
  return summarySubmissions(
    deps.db,
    (await listPackJobs(deps.db, job.packId))
      .filter((j) => j.id !== job.id)
      .map((j) => j.currentSubmissionId)
      .filter((id): id is string => !!id),
  );
}

/**
 * Submit work, a pack's slot: the tester's "same problem" answers (finding N is the same as a
 * finding of another tester's current report in the pack), checked before the report is stored.
 * Answers the pairs to store with the report, by finding index of the new report.
 */
export async function sameProblemAnswers(
  deps: Pick<JobsDeps, 'db'>,
  job: Pick<JobRow, 'id' | 'packId' | 'testerId'>,
  answers: Array<{ n: number; index: number; ref: string }>,
): Promise<Array<{ index: number; other: FindingKey }>> {
  if (!answers.length) return [];
  const others = await otherReportsOfPack(deps, job);
  const count = new Map(others.map((s) => [s.id, s.keyFindings.length]));
  return answers.map(({ n, index, ref }) => {
    const m = /^([0-9a-f-]{36}):(\d+)$/i.exec(ref.trim());
    const at = m ? Number(m[2]) : -1;
    if (!m || !(at < (count.get(m[1]) ?? 0))) {
      const msg = SUMMARY_MESSAGES.sameAsInvalid(n);
      throw AppError.invalid(msg, { same_as: [msg] });
    }
    return { index, other: { submissionId: m[1], index: at } };
  });
}

/**
 * POST /api/jobs/:id/closest-findings: the "same problem?" step of Submit Work. For each text the
 * tester wrote, the closest findings of the other testers' current reports in the pack (held
 * reports left out, like the summary). Only the tester holding the slot, while it is theirs to
 * submit; a job outside a pack has nothing to compare with (empty lists).
 */
export async function readClosestFindings(
  deps: Pick<JobsDeps, 'db' | 'lexicon'>,
  caller: Caller,
  jobId: string,
  body: ClosestFindingsBody,
): Promise<ClosestFindingsResponse> {
  const job = await getJob(deps.db, jobId);
  if (
    caller.type !== 'tester' ||
    job.testerId !== caller.id ||
    !['claimed', 'revision_requested'].includes(job.status)
  )
    throw AppError.forbidden(SUMMARY_MESSAGES.notYourSlot, 'not_your_job');
  const others = await otherReportsOfPack(deps, job);
  const findings = others.flatMap((s) =>
    s.keyFindings.map((text, i) => ({
      same_as: findingKey(s.id, i),
      text,
      severity: (s.findingDetails?.[i]?.severity ?? null) as FindingSeverity | null,
    })),
  );
  return {
    closest: closestFindings(
      deps.lexicon,
      body.texts,
      findings,
      CLOSEST_FINDINGS.perText,
      CLOSEST_FINDINGS.minSimilarity,
    ),
  };
}
