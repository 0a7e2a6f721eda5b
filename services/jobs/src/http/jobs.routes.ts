import { Router, type Request } from 'express';
import { and, eq, inArray } from 'drizzle-orm';
import { AVAILABLE_JOBS_QUERY_MESSAGES, availableJobsQuerySchema, createJobBodySchema } from '@htm/contracts';
import { AppError, callerOf, parseOrThrow } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { jobs } from '../db/schema.js';
import { listAvailableJobs, listJobs } from '../db/job.repository.js';
import { postJob, checkoutAgain, type CheckoutAnswer } from '../domain/post-job.js';
import { assignJob, claimJob, testerStanding } from '../domain/claim-job.js';
import { submitWork } from '../domain/submit-work.js';
import { readSubmission } from '../domain/read-submission.js';
import { completeJob, reviewSubmission } from '../domain/review-submission.js';
import { geoRulesFor } from '../domain/job-state.js';
import { toJobView } from './views.js';

const checkoutJson = (a: CheckoutAnswer) => ({
  checkout_url: a.checkout_url,
  session_id: a.session_id,
  job: toJobView(a.job),
  ...(a.payment_error ? { payment_error: a.payment_error } : {}),
});

function encodeCursor(ts: string, id: string): string {
  return Buffer.from(JSON.stringify([ts, id])).toString('base64url');
}
function decodeCursor(c: string): { createdAt: string; id: string } {
  try {
    const [ts, id] = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof ts === 'string' && typeof id === 'string' && /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:\d{2})?|Z)$/.test(ts) && !Number.isNaN(Date.parse(ts.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'))) && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return { createdAt: ts, id };
  } catch {
    /* fall through */
  }
  throw AppError.invalid(`${AVAILABLE_JOBS_QUERY_MESSAGES.cursor}.`, { cursor: [AVAILABLE_JOBS_QUERY_MESSAGES.cursor] });
}

const idParam = (req: Request, name = 'id') => String(req.params[name] ?? '');

export function jobsRoutes(deps: JobsDeps): Router {
  const r = Router();
  const { authenticate, requireRole } = deps.auth;

  r.post('/api/jobs', authenticate, requireRole('poster', 'admin'), async (req, res) => {
    const body = parseOrThrow(createJobBodySchema, req.body ?? {});
    res.status(201).json(checkoutJson(await postJob(deps, callerOf(req), body)));
  });

  r.post('/api/jobs/:id/checkout', authenticate, requireRole('poster', 'admin'), async (req, res) => {
    res.json(checkoutJson(await checkoutAgain(deps, callerOf(req), idParam(req))));
  });

  r.get('/api/jobs', authenticate, requireRole('poster', 'admin'), async (req, res) => {
    const caller = callerOf(req);
    if (caller.type === 'admin') {
      const rows = await listJobs(deps.db, undefined, 1000);
      res.json({ jobs: rows.map((j) => toJobView(j, j.posterInfo)) });
      return;
    }
    const rows = await listJobs(deps.db, eq(jobs.posterId, caller.id), 1000);
    res.json({ jobs: rows.map((j) => toJobView(j)) });
  });

  r.get('/api/tester/available-jobs', authenticate, requireRole('tester'), async (req, res) => {
    const q = parseOrThrow(availableJobsQuerySchema, req.query);
    const caller = callerOf(req);
    // Keyed by the token's claims too: they decide the standing until the projection knows the tester.
    const standing = await deps.readCache.standing(`${caller.id}|${caller.approved}|${caller.country}`, () => testerStanding(deps, caller));
    if (!standing.approved) throw AppError.forbidden('Your tester account is not approved yet.', 'tester_not_approved');
    const geoRules = geoRulesFor(standing.country);
    const after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const body = await deps.readCache.page(`${geoRules.join(',')}|${q.limit}|${after ? `${after.createdAt}|${after.id}` : ''}`, async () => {
      const rows = await listAvailableJobs(deps.db, { geoRules, limit: q.limit + 1, after });
      const page = rows.slice(0, q.limit);
      const last = page[page.length - 1];
      return Buffer.from(JSON.stringify({ jobs: page.map((p) => toJobView(p.job)), next_cursor: rows.length > q.limit && last ? encodeCursor(last.cursorTs, last.job.id) : null }));
    });
    res.type('application/json').send(body);
  });

  r.get('/api/tester/my-jobs', authenticate, requireRole('tester'), async (req, res) => {
    const caller = callerOf(req);
    const rows = await listJobs(deps.db, and(eq(jobs.testerId, caller.id), inArray(jobs.status, ['claimed', 'submitted', 'revision_requested', 'completed'])), 1000);
    res.json({ jobs: rows.map((j) => toJobView(j)) });
  });

  const claim = async (req: Request, res: import('express').Response) => {
    res.json({ job: toJobView(await claimJob(deps, callerOf(req), idParam(req))) });
  };
  r.post('/api/jobs/:id/claim', authenticate, requireRole('tester'), claim);
  r.post('/api/jobs/:id/accept', authenticate, requireRole('tester'), claim);

  r.post('/api/admin/assign/:jobId/:testerId', authenticate, requireRole('admin'), async (req, res) => {
    res.json({ job: toJobView(await assignJob(deps, idParam(req, 'jobId'), idParam(req, 'testerId'))) });
  });

  r.post('/api/jobs/:id/submit-work', authenticate, requireRole('tester'), async (req, res) => {
    const caller = callerOf(req);
    const out = await submitWork(deps, caller, idParam(req), 'dashboard', req);
    res.status(201).json({ submission: await readSubmission(deps, caller, out.job.id), job: toJobView(out.job) });
  });
  r.post('/api/jobs/:id/submissions', authenticate, requireRole('tester'), async (req, res) => {
    const caller = callerOf(req);
    const out = await submitWork(deps, caller, idParam(req), 'poster_flow', req);
    res.status(201).json({ submission: await readSubmission(deps, caller, out.job.id), job: toJobView(out.job) });
  });

  r.get('/api/jobs/:id/submission', authenticate, async (req, res) => {
    res.json(await readSubmission(deps, callerOf(req), idParam(req)));
  });

  r.post('/api/jobs/:id/review', authenticate, requireRole('poster', 'admin'), async (req, res) => {
    const out = await reviewSubmission(deps, callerOf(req), idParam(req), req.body);
    res.json({ payment_processed: out.payment_processed, revision_count: out.revision_count, job: toJobView(out.job) });
  });

  r.patch('/api/jobs/:id/complete', authenticate, requireRole('admin'), async (req, res) => {
    const out = await completeJob(deps, callerOf(req), idParam(req));
    res.json({ payment_processed: out.payment_processed, revision_count: out.revision_count, job: toJobView(out.job) });
  });

  return r;
}
