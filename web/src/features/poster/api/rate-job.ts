import type { RateJobBody, RatingView } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';
import { editJob, jobStale } from '../../../lib/job-cache';

const rateJobApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/jobs/:id/rating: the poster rates the tester of a completed job, once. */
    rateJob: build.mutation<{ rating: RatingView }, RateJobBody & { jobId: string }>({
      query: ({ jobId, ...body }) => ({ url: `/jobs/${jobId}/rating`, method: 'POST', body }),
      // The answer is the rating the job card and the results show: no list is read again (a
      // refusal, e.g. rated already in another tab, reads the job again).
      async onQueryStarted({ jobId }, { dispatch, queryFulfilled }) {
        try {
          const { rating } = (await queryFulfilled).data;
          dispatch(
            editJob(jobId, (j) => {
              j.rating = rating;
            }),
          );
        } catch {
          dispatch(jobStale(jobId));
        }
      },
    }),
  }),
});

export const { useRateJobMutation } = rateJobApi;
