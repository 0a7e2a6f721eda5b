import type { RateJobBody, RatingView } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';

const rateJobApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/jobs/:id/rating: the poster rates the tester of a completed job, once. */
    rateJob: build.mutation<{ rating: RatingView }, RateJobBody & { jobId: string }>({
      query: ({ jobId, ...body }) => ({ url: `/jobs/${jobId}/rating`, method: 'POST', body }),
      invalidatesTags: ['Job'],
    }),
  }),
});

export const { useRateJobMutation } = rateJobApi;
