import { Router, type Request, type Response } from 'express';
import { createHash } from 'node:crypto';
import {
  ACCEPT_JOB_MESSAGES,
  AVAILABLE_JOBS_QUERY_MESSAGES,
  acceptJobBodySchema,
  adminSessionChecksQuerySchema,
  availableJobsQuerySchema,
  createJobBodyAllowingLocalSchema,
  createJobBodySchema,
  median,
  closestFindingsBodySchema,
  regroupBodySchema,
  type AdminSessionChecks,
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
import { readSubmission } from '../domain/review/read-submission.js';
import { recordingUrl } from '../domain/recordings.js';
import {
  listMySessionChecks,
  replacedFromTester,
  requestReplacement,
} from '../domain/replace-session.js';
import { decideSession, listHeldSessions } from '../domain/session-decisions.js';
import {
  availableJobsPage,
  heldForTester,
  listPostedJobs,
  listTesterJobs,
} from '../domain/list-jobs.js';
import { geoRulesFor } from '../domain/job-state.js';
import { packsHeldBy, readPack } from '../domain/packs.js';
import {
  readClosestFindings,
  readJobSummary,
  readPackSummary,
  regroupPack,
} from '../domain/summaries.js';
import { parseMultipart } from './multipart.js';
import { toSessionCheckView, toSubmissionReadView } from './views.js';
import { toJobView } from '../domain/job-state.js';
import type { SessionVerdict } from '@htm/contracts/marketplace';

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

export const idParam = (req: Request, name = 'id') => String(req.params[name] ?? '');

/** Stripe-style Idempotency-Key on the POSTs that create, pay or decide (after authenticate: keys are per user). */
export const idempotentPosts = (deps: JobsDeps) =>
  idempotency({
    query: (text, params) => deps.dbHandle.query(text, params),
    schema: 'jobs',
    logger: deps.logger,
  });

export function jobsRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  const { authenticate, requireRole } = deps.auth;
  const once = idempotentPosts(deps);
  const recUrl = (id: string) => recordingUrl(deps, id);

  r.post('/api/jobs', authenticate, requireRole('poster', 'admin'), once, async (req, res) => {
    const schema = deps.config.SITE_CHECK_ALLOW_PRIVATE
      ? createJobBodyAllowingLocalSchema
      : createJobBodySchema;
    const body = parseOrThrow(schema, req.body ?? {});
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

  r.get('/api/tester/session-checks', authenticate, requireRole('tester'), async (req, res) => {
    const rows = await listMySessionChecks(deps, callerOf(req));
    res.json({
      checks: rows.map((c) => ({
        submission_id: c.submissionId,
        job_id: c.jobId,
        title: c.title,
        verdict: c.verdict as SessionVerdict,
        reasons: toSessionCheckView({ row: c, reader: 'tester', replacementAvailable: false })
          .reasons,
        held: c.held,
        replaced: c.replacedBy === 'poster',
        checked_at: (c.checkedAt ?? c.createdAt).toISOString(),
        released: !!c.releasedAt,
        confirmed: !!c.confirmedAt,
      })),
    });
  });

  r.get('/api/admin/session-checks', authenticate, requireRole('admin'), async (req, res) => {
    const q = parseOrThrow(adminSessionChecksQuerySchema, req.query ?? {});
    res
      .set('cache-control', 'no-store')
      .json({ sessions: await listHeldSessions(deps, q.status) } satisfies AdminSessionChecks);
  });

  for (const decision of ['release', 'confirm'] as const)
    r.post(
      `/api/admin/session-checks/{id}/${decision}`,
      authenticate,
      requireRole('admin'),
      async (req, res) => {
        res.json(await decideSession(deps, callerOf(req), idParam(req), decision));
      },
    );

  r.post(
    '/api/jobs/{id}/replacement',
    authenticate,
    requireRole('poster', 'admin'),
    once,
    async (req, res) => {
      res.json({ job: toJobView(await requestReplacement(deps, callerOf(req), idParam(req))) });
    },
  );

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
      reported: p.reported,
      clusters: p.clusters,
    } satisfies PackView);
  });

  r.get(
    '/api/packs/{id}/summary',
    authenticate,
    requireRole('poster', 'admin'),
    async (req, res) => {
      res.json(await readPackSummary(deps, callerOf(req), idParam(req)));
    },
  );

  r.post(
    '/api/packs/{id}/groups',
    authenticate,
    requireRole('poster', 'admin'),
    async (req, res) => {
      const body = parseOrThrow(regroupBodySchema, req.body);
      await regroupPack(deps, callerOf(req), idParam(req), body);
      res.json({ requested: true });
    },
  );

  r.post(
    '/api/jobs/{id}/closest-findings',
    authenticate,
    requireRole('tester'),
    async (req, res) => {
      const body = parseOrThrow(closestFindingsBodySchema, req.body ?? {});
      res.json(await readClosestFindings(deps, callerOf(req), idParam(req), body));
    },
  );

  r.get(
    '/api/jobs/{id}/summary',
    authenticate,
    requireRole('poster', 'tester', 'admin'),
    async (req, res) => {
      res.json(await readJobSummary(deps, callerOf(req), idParam(req)));
    },
  );

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
    // Re-tests held for this tester (RETEST_RESERVE_MS) head their first page; packs they hold or
    // held a slot of, and jobs replaced because of their report, are left out: per tester, never cached.
    const [held, ownPacks, replaced] = await Promise.all([
      after ? [] : heldForTester(deps, caller.id, geoRules),
      packsHeldBy(deps, caller.id),
      replacedFromTester(deps, caller.id),
    ]);
    if (!held.length && !ownPacks.length && !replaced.length) {
      res.type('application/json').send(body);
      return;
    }
    const shared = JSON.parse(body.toString('utf8')) as AvailableJobsPage;
    const mine = new Set(ownPacks);
    const notTheirs = new Set(replaced);
    res.json({
      ...shared,
      jobs: [
        ...held.map((j) => toJobView(j)),
        ...shared.jobs.filter((j) => (!j.pack_id || !mine.has(j.pack_id)) && !notTheirs.has(j.id)),
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

  return r.router;
}
