import type { Router } from 'express';
import { callerOf, catalogueRoutes } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import { toJobView, toRatingView } from '../domain/job-state.js';
import {
  readReleasedReports,
  readRetestComparison,
  readSubmission,
} from '../domain/review/read-submission.js';
import { rateJob } from '../domain/review/rate-job.js';
import {
  completeJob,
  reviewSubmission,
  type ReviewAnswer,
} from '../domain/review/review-submission.js';
import { recordingUrl } from '../domain/recordings.js';
import { idempotentPosts, idParam } from './jobs.routes.js';
import { toRetestComparisonView, toSubmissionReadView } from './views.js';

const reviewJson = (out: ReviewAnswer) => ({
  payment_processed: out.payment_processed,
  revision_count: out.revision_count,
  job: toJobView(out.job),
});

/**
 * Review and acceptance (domain/review/): what the poster (or the admin) reads of the work, and
 * what they decide on it: a revision, an acceptance (the admin's "complete" too), a rating.
 */
export function reviewRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  const { authenticate, requireRole } = deps.auth;
  const once = idempotentPosts(deps);
  const recUrl = (id: string) => recordingUrl(deps, id);

  r.get('/api/jobs/{id}/submission', authenticate, async (req, res) => {
    res.json(
      toSubmissionReadView(
        await readSubmission(deps, callerOf(req), idParam(req)),
        deps.links,
        recUrl,
      ),
    );
  });

  r.get('/api/jobs/{id}/released-reports', authenticate, async (req, res) => {
    const reads = await readReleasedReports(deps, callerOf(req), idParam(req));
    res.json({ reports: reads.map((r) => toSubmissionReadView(r, deps.links, recUrl)) });
  });

  r.get('/api/jobs/{id}/before-after', authenticate, async (req, res) => {
    res.json(
      toRetestComparisonView(
        await readRetestComparison(deps, callerOf(req), idParam(req)),
        deps.links,
      ),
    );
  });

  r.post(
    '/api/jobs/{id}/review',
    authenticate,
    requireRole('poster', 'admin'),
    once,
    async (req, res) => {
      res.json(reviewJson(await reviewSubmission(deps, callerOf(req), idParam(req), req.body)));
    },
  );

  r.patch('/api/jobs/{id}/complete', authenticate, requireRole('admin'), async (req, res) => {
    res.json(reviewJson(await completeJob(deps, callerOf(req), idParam(req))));
  });

  r.post('/api/jobs/{id}/rating', authenticate, async (req, res) => {
    const rating = await rateJob(deps, callerOf(req), idParam(req), req.body);
    res.status(201).json({ rating: toRatingView(rating) });
  });

  return r.router;
}
