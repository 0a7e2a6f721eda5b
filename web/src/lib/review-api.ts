import { api } from './api';
import { newIdempotencyKey } from './base-query';
import type { JobView as Job } from '@htm/contracts/jobs';

export interface ReviewArgs {
  jobId: string;
  decision: 'accept' | 'request_revision' | 'reject';
  reason?: string;
  specific_issues?: string[];
}

const reviewApi = api.injectEndpoints({
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
      // 'Job' also refreshes the admin's list; an accept moves the admin's money overview.
      invalidatesTags: (_r, _e, a) => ['Job', 'Overview', { type: 'Submission', id: a.jobId }],
    }),
  }),
});

export const { useReviewJobMutation } = reviewApi;
