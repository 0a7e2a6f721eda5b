import type { CashOutResponse } from '@htm/contracts/payments';
import { api } from '../../../lib/api';
import { newIdempotencyKey } from '../../../lib/base-query';

const cashOutApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/tester/cash-out: every pending earning in one transfer (from the minimum up). */
    cashOut: build.mutation<CashOutResponse, void>({
      query: () => ({
        url: '/tester/cash-out',
        method: 'POST',
        idempotencyKey: newIdempotencyKey(),
      }),
      invalidatesTags: ['Earnings'],
    }),
  }),
});

export const { useCashOutMutation } = cashOutApi;
