import type { PayoutRunResponse } from '@htm/contracts/payments';
import { api } from '../../../lib/api';

const payoutsApi = api.injectEndpoints({
  endpoints: (build) => ({
    runPayouts: build.mutation<PayoutRunResponse, void>({
      query: () => ({ url: '/admin/payouts/run', method: 'POST' }),
      invalidatesTags: ['Overview'],
    }),
  }),
});

export const { useRunPayoutsMutation } = payoutsApi;
