import { createEvent } from '@htm/events';
import { AppError, getCorrelationId, type Caller, type Tx } from '@htm/service-kit';
import {
  JOB_LIMITS,
  PRICE_PER_TEST_CENTS,
  siteHost,
  type CreateJobBody,
  type GeoRule,
} from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import type { JobRow } from '../db/schema.js';
import {
  countCheckoutAttempt,
  findJob,
  insertJob as insertJobRow,
  markUnpaidJobDeleted,
  setCheckoutSession,
} from '../db/job.repository.js';
import {
  findPack,
  insertPack,
  listPackJobs,
  markUnpaidPackDeleted,
  setPackCheckoutSession,
} from '../db/pack.repository.js';
import { decide, getJob } from './job-state.js';
import { assertInvitable } from './favourites.js';

export interface CheckoutAnswer {
  checkout_url: string | null;
  session_id: string | null;
  /** The job (a pack: its first slot, the one the checkout session is for). */
  job: JobRow;
  /** A pack: every slot in order, and the pack. */
  jobs?: JobRow[];
  pack?: { id: string; size: number };
  payment_error?: string;
}

export const PAYMENT_DOWN =
  'Payments are not answering right now. Your job is saved unpaid; please try paying again in a moment.';

/**
 * Creates the job unpaid (JobCreated in the same transaction), then asks payments for a checkout
 * session. `testers` above 1 makes a pack: that many jobs with the same content (JobCreated each,
 * PackCreated once, one transaction) and one checkout for all of them (testers × $1).
 */
export async function postJob(
  deps: JobsDeps,
  caller: Caller,
  body: CreateJobBody,
): Promise<CheckoutAnswer> {
  // An invited favourite (#34): the job is held for them (like a re-test) once paid, then opens to everyone.
  if (body.invite_tester_id) await assertInvitable(deps, caller, body.invite_tester_id);
  const fields: NewJob = {
    title: body.title,
    url: body.url,
    whatToTest: body.what_to_test,
    expectedCompletionHours: body.expected_completion_hours,
    geoRule: body.geo_rule,
    requirements: body.requirements,
    freshEyes: body.fresh_eyes,
    recordingRequired: body.recording_required,
    assistiveTech: body.assistive_tech,
    reservedTesterId: body.invite_tester_id,
  };
  if (body.testers <= 1) return requestCheckout(deps, await insertJob(deps, caller, fields));
  const { pack, slots } = await deps.events.inTransaction(async (tx) => {
    const createdAt = new Date();
    const pack = await insertPack(tx, { posterId: caller.id, size: body.testers, createdAt });
    const slots: JobRow[] = [];
    // An invited favourite is held one slot (a pack's slots each go to a different tester).
    for (let i = 0; i < body.testers; i++)
      slots.push(
        await insertJobIn(
          deps,
          tx,
          caller,
          {
            ...fields,
            reservedTesterId: i === 0 ? fields.reservedTesterId : null,
            packId: pack.id,
          },
          createdAt,
        ),
      );
    slots.sort((a, b) => (a.id < b.id ? -1 : 1));
    await deps.events.record(
      tx,
      createEvent(
        'PackCreated',
        pack.id,
        {
          packId: pack.id,
          posterId: caller.id,
          size: pack.size,
          jobIds: slots.map((j) => j.id),
          url: fields.url,
        },
        { correlationId: getCorrelationId() },
      ),
    );
    return { pack, slots };
  });
  return requestPackCheckout(deps, { id: pack.id, size: pack.size }, slots);
}

export const RETEST_TITLE_PREFIX = 'Re-test: ';

/** The re-test's title: "Re-test: " + the original's (without stacking prefixes), within the title limit. */
export function retestTitle(original: string): string {
  const base = original.startsWith(RETEST_TITLE_PREFIX)
    ? original.slice(RETEST_TITLE_PREFIX.length)
    : original;
  return (RETEST_TITLE_PREFIX + base).slice(0, JOB_LIMITS.titleMax);
}

/**
 * POST /api/jobs/:id/retest: the poster of a completed job posts it again for the same tester
 * (same url, what to test, requirements and geo rule); once paid it is reserved for that tester.
 */
export async function retestJob(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<CheckoutAnswer> {
  const original = await getJob(deps.db, jobId);
  if (original.posterId !== caller.id)
    throw AppError.forbidden(
      'Only the poster of this job can ask for a re-test.',
      'not_job_poster',
    );
  if (original.status !== 'completed')
    throw AppError.conflict('Only a completed job can be re-tested.', 'not_completed');
  const job = await insertJob(deps, caller, {
    title: retestTitle(original.title),
    url: original.url,
    whatToTest: original.whatToTest,
    expectedCompletionHours: original.expectedCompletionHours,
    geoRule: original.geoRule as GeoRule,
    requirements: original.requirements,
    // The same tester checks again: fresh-eyes rules do not apply to a re-test.
    freshEyes: false,
    recordingRequired: original.recordingRequired,
    assistiveTech: original.assistiveTech,
    retestOf: original.id,
    reservedTesterId: original.testerId,
  });
  return requestCheckout(deps, job);
}

interface NewJob {
  title: string;
  url: string;
  whatToTest: string;
  expectedCompletionHours: number;
  geoRule: GeoRule;
  requirements: string[];
  freshEyes: boolean;
  recordingRequired?: boolean;
  assistiveTech: string | null;
  retestOf?: string;
  reservedTesterId?: string | null;
  packId?: string;
}

function insertJob(deps: JobsDeps, caller: Caller, fields: NewJob): Promise<JobRow> {
  return deps.events.inTransaction((tx) => insertJobIn(deps, tx, caller, fields, new Date()));
}

async function insertJobIn(
  deps: JobsDeps,
  tx: Tx,
  caller: Caller,
  fields: NewJob,
  createdAt: Date,
): Promise<JobRow> {
  const row = await insertJobRow(tx, {
    ...fields,
    budgetCents: PRICE_PER_TEST_CENTS,
    siteHost: siteHost(fields.url),
    posterId: caller.id,
    posterEmail: caller.email,
    posterName: caller.name,
    createdAt,
  });
  await deps.events.record(
    tx,
    createEvent(
      'JobCreated',
      row.id,
      {
        jobId: row.id,
        posterId: caller.id,
        title: row.title,
        url: row.url,
        geoRule: fields.geoRule,
        budgetCents: PRICE_PER_TEST_CENTS,
        expectedCompletionHours: row.expectedCompletionHours,
      },
      { correlationId: getCorrelationId() },
    ),
  );
  return row;
}

/**
 * POST /api/jobs/:id/checkout: a checkout session for an unpaid job (poster of the job or admin).
 * Payments answers the job's open session while there is one (two tabs get the same session).
 */
export async function checkoutAgain(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<CheckoutAnswer> {
  const job = await getJob(deps.db, jobId);
  if (job.deletedAt) throw AppError.notFound('Job not found.', 'job_not_found');
  if (caller.type !== 'admin' && job.posterId !== caller.id)
    throw AppError.forbidden('Only the poster of this job can pay for it.', 'not_job_poster');
  decide(job, 'checkout');
  if (job.packId) {
    // A pack is paid as a whole: one session for all its slots.
    const pack = await findPack(deps.db, job.packId);
    if (pack)
      return requestPackCheckout(
        deps,
        { id: pack.id, size: pack.size },
        await listPackJobs(deps.db, pack.id),
      );
  }
  return requestCheckout(deps, job);
}

async function requestPackCheckout(
  deps: JobsDeps,
  pack: { id: string; size: number },
  slots: JobRow[],
): Promise<CheckoutAnswer> {
  const answer = await requestCheckout(deps, slots[0], slots);
  const fresh = answer.session_id ? await listPackJobs(deps.db, pack.id) : slots;
  return { ...answer, job: fresh[0] ?? answer.job, jobs: fresh, pack };
}

async function requestCheckout(
  deps: JobsDeps,
  job: JobRow,
  packSlots?: JobRow[],
): Promise<CheckoutAnswer> {
  const attempt = await countCheckoutAttempt(deps.db, job.id);
  try {
    const r = await deps.payments.createCheckoutSession({
      job_id: job.id,
      poster_id: job.posterId,
      title: job.title,
      attempt,
      ...(packSlots ? { job_ids: packSlots.map((j) => j.id) } : {}),
    });
    if (job.packId) await setPackCheckoutSession(deps.db, job.packId, r.session_id);
    const updated = await setCheckoutSession(deps.db, job.id, r.session_id);
    return { checkout_url: r.checkout_url, session_id: r.session_id, job: updated ?? job };
  } catch (err) {
    // Payments knows the job is paid before its JobPaid reached us: the same 409 as decide().
    if (err instanceof AppError && err.code === 'already_paid') throw err;
    // Payments is down or answered nonsense (the client logged that): the job stays saved, unpaid.
    if (!(err instanceof AppError && err.code === 'payments_unavailable'))
      deps.logger.warn(
        { err: (err as Error).message, jobId: job.id },
        'checkout session could not be created',
      );
    const fresh = (await findJob(deps.db, job.id)) ?? job;
    return { checkout_url: null, session_id: null, job: fresh, payment_error: PAYMENT_DOWN };
  }
}

/**
 * The poster deletes a job that was never paid (open, unpaid): it leaves every list at once.
 * Only the poster; a paid job is 409 `already_paid`. A checkout of it still open in another tab
 * can be paid: JobPaid then restores the job, so a payment never lands on a deleted job.
 */
export async function deleteUnpaidJob(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<void> {
  const job = await getJob(deps.db, jobId);
  if (job.deletedAt) throw AppError.notFound('Job not found.', 'job_not_found');
  if (job.posterId !== caller.id)
    throw AppError.forbidden('Only the poster of this job can delete it.', 'not_job_poster');
  // A pack is ordered, paid and so deleted as a whole.
  if (job.packId) {
    if (!(await markUnpaidPackDeleted(deps.db, job.packId)))
      throw AppError.conflict(
        'This job has been paid for, so it can no longer be deleted.',
        'already_paid',
      );
    return;
  }
  if (!(await markUnpaidJobDeleted(deps.db, job.id)))
    throw AppError.conflict(
      'This job has been paid for, so it can no longer be deleted.',
      'already_paid',
    );
}
