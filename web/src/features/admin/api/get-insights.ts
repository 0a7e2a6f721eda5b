import type { InsightsResponse } from '@htm/contracts/analytics';
import { api } from '../../../lib/api';

const insightsApi = api.injectEndpoints({
  endpoints: (build) => ({
    // 'Overview' is what the admin's live `job` and `earnings` messages refetch.
    getInsights: build.query<InsightsResponse, { from: string; to: string }>({
      query: ({ from, to }) => ({ url: '/admin/insights', params: { from, to } }),
      providesTags: ['Overview'],
    }),
  }),
});

export const { useGetInsightsQuery } = insightsApi;
