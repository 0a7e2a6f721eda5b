import { api } from '../../../lib/api';
import { newIdempotencyKey } from '../../../lib/base-query';
import type { CheckoutAnswer } from './create-job';

const retestApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/jobs/:id/retest: a re-test of a completed job by the same tester ('Re-test'). */
    retestJob: build.mutation<CheckoutAnswer, string>({
      query: (id) => ({
        url: `/jobs/${encodeURIComponent(id)}/retest`,
        method: 'POST',
        idempotencyKey: newIdempotencyKey(),
      }),
      invalidatesTags: ['Job'],
    }),
  }),
});

export const { useRetestJobMutation } = retestApi;
