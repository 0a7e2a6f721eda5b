import type { EarningsResponse } from '@htm/contracts/payments';
import { api } from '../../../lib/api';

const earningsApi = api.injectEndpoints({
  endpoints: (build) => ({
    getEarnings: build.query<EarningsResponse, void>({
      query: () => ({ url: '/tester/my-earnings' }),
      providesTags: ['Earnings'],
    }),
  }),
});

export const { useGetEarningsQuery } = earningsApi;
