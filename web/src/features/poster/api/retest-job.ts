import { api } from '../../../lib/api';
import type { CheckoutAnswer } from './create-job';

const retestApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/jobs/:id/retest: a re-test of a completed job by the same tester ('Re-test'). */
    retestJob: build.mutation<CheckoutAnswer, string>({
      query: (id) => ({ url: `/jobs/${encodeURIComponent(id)}/retest`, method: 'POST' }),
      invalidatesTags: ['Job'],
    }),
  }),
});

export const { useRetestJobMutation } = retestApi;
