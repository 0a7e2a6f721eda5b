import { api } from '../../../lib/api';
import type { Job } from '../../../lib/types';

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
      }),
      invalidatesTags: (_r, _e, a) => ['Job', { type: 'Submission', id: a.jobId }],
    }),
  }),
});

export const { useReviewJobMutation } = reviewApi;
