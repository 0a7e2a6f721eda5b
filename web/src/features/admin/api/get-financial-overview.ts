import type { FinancialOverview } from '@htm/contracts/payments';
import { api } from '../../../lib/api';

const overviewApi = api.injectEndpoints({
  endpoints: (build) => ({
    getFinancialOverview: build.query<FinancialOverview, void>({
      query: () => ({ url: '/admin/financial-overview' }),
      providesTags: ['Overview'],
    }),
  }),
});

export const { useGetFinancialOverviewQuery } = overviewApi;
