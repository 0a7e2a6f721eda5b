import type { CreateJobBody, JobView } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';
import { newIdempotencyKey } from '../../../lib/base-query';

export interface CheckoutAnswer {
  checkout_url: string | null;
  session_id: string | null;
  job: JobView;
  /** Every job ordered (a pack: one per tester; else the one job). */
  jobs?: JobView[];
  pack?: { id: string; size: number } | null;
  payment_error?: string;
}

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
