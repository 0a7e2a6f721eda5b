import type { CheckoutAnswer, CreateJobBody } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';
import { newIdempotencyKey } from '../../../lib/base-query';

export type { CheckoutAnswer };

const createJobApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/jobs with the Post New Job form as the contracts schema parsed it. */
    createJob: build.mutation<CheckoutAnswer, CreateJobBody>({
      query: (body) => ({
        url: '/jobs',
        method: 'POST',
        body,
        idempotencyKey: newIdempotencyKey(),
      }),
      invalidatesTags: ['Job'],
    }),
  }),
});

export const { useCreateJobMutation } = createJobApi;
