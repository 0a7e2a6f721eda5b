import { api } from '../../../lib/api';
import { newIdempotencyKey } from '../../../lib/base-query';
import type { CheckoutAnswer } from './create-job';

const checkoutApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/jobs/:id/checkout: a new checkout session for an unpaid job ('Pay now'). */
    checkoutJob: build.mutation<CheckoutAnswer, string>({
      query: (id) => ({
        url: `/jobs/${encodeURIComponent(id)}/checkout`,
        method: 'POST',
        idempotencyKey: newIdempotencyKey(),
      }),
    }),
  }),
});

export const { useCheckoutJobMutation } = checkoutApi;
