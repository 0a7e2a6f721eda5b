import { api } from './api';
import { newIdempotencyKey } from './base-query';
import { answeredJob } from './job-cache';
import type { JobView as Job } from '@htm/contracts/jobs';

export interface ReviewArgs {
  jobId: string;
  decision: 'accept' | 'request_revision' | 'reject';
  reason?: string;
  specific_issues?: string[];
}

export const reviewApi = api.injectEndpoints({
  endpoints: (build) => ({
    reviewJob: build.mutation<
      { payment_processed: boolean; revision_count: number; job: Job },
      ReviewArgs
    >({
      query: ({ jobId, ...body }) => ({
        url: `/jobs/${encodeURIComponent(jobId)}/review`,
        method: 'POST',
        body,
        idempotencyKey: newIdempotencyKey(),
      }),
      // The lists show the decision at once where the rules allow it (accepted: completed; a
      // revision: revision requested), then the job as the server answers it; a refusal undoes
      // that and reads the job again. The report itself changes (an accept unlocks it), and an
      // accept moves the admin's money overview.
      onQueryStarted: ({ jobId, decision }, lifecycle) =>
        void answeredJob(jobId, lifecycle, decision === 'reject' ? undefined : decision),
      invalidatesTags: (_r, _e, a) => ['Overview', { type: 'Submission', id: a.jobId }],
    }),
    /** POST /api/jobs/:id/replacement: "Get a free replacement" of a report delivered with a warning (once per job). */
    requestReplacement: build.mutation<{ job: Job }, string>({
      query: (jobId) => ({
        url: `/jobs/${encodeURIComponent(jobId)}/replacement`,
        method: 'POST',
        idempotencyKey: newIdempotencyKey(),
      }),
      onQueryStarted: (jobId, lifecycle) => void answeredJob(jobId, lifecycle),
      invalidatesTags: (_r, _e, jobId) => [{ type: 'Submission', id: jobId }],
    }),
  }),
});

export const { useReviewJobMutation, useRequestReplacementMutation } = reviewApi;
