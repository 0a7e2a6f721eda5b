import type { PayoutAccountResponse } from '@htm/contracts/payments';
import { api } from '../../../lib/api';

const payoutApi = api.injectEndpoints({
  endpoints: (build) => ({
    getPayoutAccount: build.query<PayoutAccountResponse, void>({
      query: () => ({ url: '/tester/payout-account' }),
      providesTags: ['PayoutAccount'],
    }),
    connectPayoutAccount: build.mutation<PayoutAccountResponse, void>({
      query: () => ({ url: '/tester/payout-account', method: 'POST' }),
      invalidatesTags: ['PayoutAccount'],
    }),
  }),
});

export const { useGetPayoutAccountQuery, useConnectPayoutAccountMutation } = payoutApi;
