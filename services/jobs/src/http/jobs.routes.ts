import { Router, type Request, type Response } from 'express';
import { createHash } from 'node:crypto';
import {
  ACCEPT_JOB_MESSAGES,
  AVAILABLE_JOBS_QUERY_MESSAGES,
  acceptJobBodySchema,
  availableJobsQuerySchema,
  createJobBodySchema,
  median,
  type AvailableJobsPage,
  type PackView,
  type RecordingLimits,
} from '@htm/contracts';
import { AppError, callerOf, catalogueRoutes, idempotency, parseOrThrow } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import {
  postJob,
  checkoutAgain,
  deleteUnpaidJob,
  retestJob,
  type CheckoutAnswer,
} from '../domain/post-job.js';
import { assignJob, cachedStanding, claimJob, readTesterStanding } from '../domain/claim-job.js';
import {
  isStorageFull,
  prepareSubmission,
  storageFailed,
  submitWork,
} from '../domain/submit-work.js';
import { uploadRules, type SubmitVariant } from '../domain/uploads.js';
import { readRetestComparison, readSubmission } from '../domain/read-submission.js';
import { recordingUrl } from '../domain/recordings.js';
import { completeJob, reviewSubmission } from '../domain/review-submission.js';
import { rateJob } from '../domain/rate-job.js';
import {
  availableJobsPage,
  heldForTester,
  listPostedJobs,
  listTesterJobs,
} from '../domain/list-jobs.js';
import { geoRulesFor } from '../domain/job-state.js';
import { packsHeldBy, readPack } from '../domain/packs.js';
import { parseMultipart } from './multipart.js';
import { toJobView, toRatingView, toRetestComparisonView, toSubmissionReadView } from './views.js';

const checkoutJson = (a: CheckoutAnswer) => ({
  checkout_url: a.checkout_url,
  session_id: a.session_id,
  job: toJobView(a.job),
  // A pack: every slot (the first is `job`) and the pack; one job: itself, and no pack.
  jobs: (a.jobs ?? [a.job]).map((j) => toJobView(j)),
  pack: a.pack ?? null,
  ...(a.payment_error ? { payment_error: a.payment_error } : {}),
});

function encodeCursor(ts: string, id: string): string {
  return Buffer.from(JSON.stringify([ts, id])).toString('base64url');
}
function decodeCursor(c: string): { createdAt: string; id: string } {
  try {
    const [ts, id] = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as [unknown, unknown];
    if (
      typeof ts === 'string' &&
      typeof id === 'string' &&
      /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:\d{2})?|Z)$/.test(ts) &&
      !Number.isNaN(Date.parse(ts.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'))) &&
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)
    )
      return { createdAt: ts, id };
  } catch {
    /* fall through */
  }
  throw AppError.invalid(`${AVAILABLE_JOBS_QUERY_MESSAGES.cursor}.`, {
    cursor: [AVAILABLE_JOBS_QUERY_MESSAGES.cursor],
  });
}

const idParam = (req: Request, name = 'id') => String(req.params[name] ?? '');

export function jobsRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  const { authenticate, requireRole } = deps.auth;
  // Stripe-style Idempotency-Key on the POSTs that create or pay (after authenticate: keys are per user).
  const once = idempotency({
    query: (text, params) => deps.dbHandle.query(text, params),
    schema: 'jobs',
    logger: deps.logger,
  });
  const recUrl = (id: string) => recordingUrl(deps, id);

  r.post('/api/jobs', authenticate, requireRole('poster', 'admin'), once, async (req, res) => {
    const body = parseOrThrow(createJobBodySchema, req.body ?? {});
    res.status(201).json(checkoutJson(await postJob(deps, callerOf(req), body)));
  });

  r.post(
    '/api/jobs/{id}/retest',
    authenticate,
    requireRole('poster', 'admin'),
    once,
    async (req, res) => {
      res.status(201).json(checkoutJson(await retestJob(deps, callerOf(req), idParam(req))));
    },
  );

  r.get('/api/jobs/{id}/before-after', authenticate, async (req, res) => {
    res.json(
      toRetestComparisonView(
        await readRetestComparison(deps, callerOf(req), idParam(req)),
        deps.links,
      ),
    );
  });

  r.post(
    '/api/jobs/{id}/checkout',
    authenticate,
    requireRole('poster', 'admin'),
    once,
    async (req, res) => {
      res.json(checkoutJson(await checkoutAgain(deps, callerOf(req), idParam(req))));
    },
  );

  r.get('/api/jobs', authenticate, requireRole('poster', 'admin'), async (req, res) => {
    const caller = callerOf(req);
    const { jobs, ratings } = await listPostedJobs(deps, caller);
    // The admin sees every job with its poster's e-mail and name.
    res.json({
      jobs: jobs.map((j) =>
        toJobView(j, caller.type === 'admin' ? j.posterInfo : undefined, ratings.get(j.id) ?? null),
      ),
    });
  });

  r.delete('/api/jobs/{id}', authenticate, requireRole('poster', 'admin'), async (req, res) => {
    await deleteUnpaidJob(deps, callerOf(req), idParam(req));
    res.status(204).end();
  });

  r.get('/api/packs/{id}', authenticate, requireRole('poster', 'admin'), async (req, res) => {
    const p = await readPack(deps, callerOf(req), idParam(req));
    res.json({
      pack: p.pack,
      jobs: p.jobs.map((j) => toJobView(j)),
      clusters: p.clusters,
    } satisfies PackView);
  });

  r.get('/api/tester/available-jobs', authenticate, requireRole('tester'), async (req, res) => {
    const q = parseOrThrow(availableJobsQuerySchema, req.query);
    const caller = callerOf(req);
    // Keyed by the token's claims too: they decide the standing until the projection knows the tester.
    const standing = await cachedStanding(deps, caller);
    if (!standing.approved)
      throw AppError.forbidden('Your tester account is not approved yet.', 'tester_not_approved');
    const geoRules = geoRulesFor(standing.country);
    const after = q.cursor ? decodeCursor(q.cursor) : undefined;
    const windowMs = deps.config.PRIORITY_WINDOW_MS;
    const fit = {
      assistiveTech: [...standing.assistiveTech].sort(),
      testedSites: standing.testedSites,
      windowRules: windowMs > 0 && !standing.topRated ? standing.windowRules : [],
      windowCutoff: new Date(Date.now() - windowMs).toISOString(),
    };
    // Testers with the same geo rules, assistive tech, tested sites and window share pages. A page
    // hiding jobs in their priority window may show them up to READ_CACHE_TTL_MS late (never early).
    const fitKey = createHash('sha1')
      .update(JSON.stringify([fit.assistiveTech, fit.testedSites, fit.windowRules]))
      .digest('base64url');
    const body = await deps.readCache.page(
      `${geoRules.join(',')}|${fitKey}|${q.limit}|${after ? `${after.createdAt}|${after.id}` : ''}`,
      async () => {
        const { rows, minutes } = await availableJobsPage(deps, {
          geoRules,
          limit: q.limit + 1,
          after,
          fit,
        });
        const page = rows.slice(0, q.limit);
        const last = page[page.length - 1];
        const usual = median(minutes);
        const answer: AvailableJobsPage = {
          jobs: page.map((p) => toJobView(p.job)),
          next_cursor:
            rows.length > q.limit && last ? encodeCursor(last.cursorTs, last.job.id) : null,
          usual_minutes: usual === null ? null : Math.round(usual),
          max_active_claims: deps.config.MAX_ACTIVE_CLAIMS,
        };
        return Buffer.from(JSON.stringify(answer));
      },
    );
    // Re-tests held for this tester (RETEST_RESERVE_MS) head their first page, and packs they hold
    // or held a slot of are left out; both per tester, so never cached.
    const [held, ownPacks] = await Promise.all([
      after ? [] : heldForTester(deps, caller.id, geoRules),
      packsHeldBy(deps, caller.id),
    ]);
    if (!held.length && !ownPacks.length) {
      res.type('application/json').send(body);
      return;
    }
    const shared = JSON.parse(body.toString('utf8')) as AvailableJobsPage;
    const mine = new Set(ownPacks);
    res.json({
      ...shared,
      jobs: [
        ...held.map((j) => toJobView(j)),
        ...shared.jobs.filter((j) => !j.pack_id || !mine.has(j.pack_id)),
      ],
    });
  });

  r.get('/api/tester/my-jobs', authenticate, requireRole('tester'), async (req, res) => {
    const caller = callerOf(req);
    // The recorder in Submit Work stops itself at RECORDING_MAX_MS: the web app learns the limits here.
    const recording_limits: RecordingLimits = {
      max_ms: deps.config.RECORDING_MAX_MS,
      max_bytes: deps.config.RECORDING_MAX_BYTES,
    };
    res.json({
      jobs: (await listTesterJobs(deps, caller)).map((j) => toJobView(j)),
      recording_limits,
    });
  });

  r.get('/api/tester/standing', authenticate, requireRole('tester'), async (req, res) => {
    res.set('cache-control', 'no-store').json(await readTesterStanding(deps, callerOf(req).id));
  });

  // A claim or an assignment changes jobs.jobs alone: when it ends, the read cache drops its
  // pages and keeps testers' standings (app.ts), so a storm of claims does not reload them.
  const claim = async (req: Request, res: Response) => {
    res.locals.changedTable = 'jobs';
    res.json({ job: toJobView(await claimJob(deps, callerOf(req), idParam(req))) });
  };
  r.post('/api/jobs/{id}/claim', authenticate, requireRole('tester'), claim);
  // The spec: "an admin accepts or assigns". A tester accepts for herself; the admin names the tester.
  r.post(
    '/api/jobs/{id}/accept',
    authenticate,
    requireRole('tester', 'admin'),
    async (req, res) => {
      const caller = callerOf(req);
      if (caller.type !== 'admin') return claim(req, res);
      res.locals.changedTable = 'jobs';
      const body = parseOrThrow(acceptJobBodySchema, req.body ?? {});
      if (!body.tester_id)
        throw AppError.invalid(`${ACCEPT_JOB_MESSAGES.testerRequired}.`, {
          tester_id: [ACCEPT_JOB_MESSAGES.testerRequired],
        });
      res.json({ job: toJobView(await assignJob(deps, idParam(req), body.tester_id, caller.id)) });
    },
  );

  r.post(
    '/api/admin/assign/{jobId}/{testerId}',
    authenticate,
    requireRole('admin'),
    async (req, res) => {
      res.locals.changedTable = 'jobs';
      res.json({
        job: toJobView(
          await assignJob(deps, idParam(req, 'jobId'), idParam(req, 'testerId'), callerOf(req).id),
        ),
      });
    },
  );

  // Rights and job state are checked before the body is read; then the multipart body is streamed
  // to temporary files (deleted whatever happens) and handed to the use case already parsed.
  const submit = (variant: SubmitVariant) => async (req: Request, res: Response) => {
    const caller = callerOf(req);
    const job = await prepareSubmission(deps, caller, idParam(req));
    let out: Awaited<ReturnType<typeof submitWork>>;
    try {
      const form = await parseMultipart(req, {
        tmpDir: deps.tmpDir,
        ...uploadRules(variant),
        idleTimeoutMs: deps.config.UPLOAD_IDLE_TIMEOUT_MS,
      });
      try {
        out = await submitWork(deps, caller, job, variant, {
          fields: form.fields,
          files: form.files,
        });
      } finally {
        await form.cleanup();
      }
    } catch (err) {
      // Our disk or storage is full: 507 (not a wrong file type), and the tester's clock is kept fair.
      if (isStorageFull(err)) throw await storageFailed(deps, caller, job, err);
      throw err;
    }
    res.status(201).json({
      submission: toSubmissionReadView(
        await readSubmission(deps, caller, out.job.id),
        deps.links,
        recUrl,
      ),
      job: toJobView(out.job),
    });
  };
  r.post(
    '/api/jobs/{id}/submit-work',
    authenticate,
    requireRole('tester'),
    once,
    submit('dashboard'),
  );
  r.post(
    '/api/jobs/{id}/submissions',
    authenticate,
    requireRole('tester'),
    once,
    submit('poster_flow'),
  );

  r.get('/api/jobs/{id}/submission', authenticate, async (req, res) => {
    res.json(
      toSubmissionReadView(
        await readSubmission(deps, callerOf(req), idParam(req)),
        deps.links,
        recUrl,
      ),
    );
  });

  r.post(
    '/api/jobs/{id}/review',
    authenticate,
    requireRole('poster', 'admin'),
    once,
    async (req, res) => {
      const out = await reviewSubmission(deps, callerOf(req), idParam(req), req.body);
      res.json({
        payment_processed: out.payment_processed,
        revision_count: out.revision_count,
        job: toJobView(out.job),
      });
    },
  );

  r.post('/api/jobs/{id}/rating', authenticate, async (req, res) => {
    const rating = await rateJob(deps, callerOf(req), idParam(req), req.body);
    res.status(201).json({ rating: toRatingView(rating) });
  });

  r.patch('/api/jobs/{id}/complete', authenticate, requireRole('admin'), async (req, res) => {
    const out = await completeJob(deps, callerOf(req), idParam(req));
    res.json({
      payment_processed: out.payment_processed,
      revision_count: out.revision_count,
      job: toJobView(out.job),
    });
  });

  return r.router;
}
