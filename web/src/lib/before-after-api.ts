import type { RetestComparisonView } from '@htm/contracts/jobs';
import { api } from './api';

const beforeAfterApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/jobs/:id/before-after: a re-test's findings beside the original's (poster and tester). */
    getBeforeAfter: build.query<RetestComparisonView, string>({
      query: (jobId) => ({ url: `/jobs/${encodeURIComponent(jobId)}/before-after` }),
      providesTags: (_r, _e, id) => [{ type: 'Submission', id }],
    }),
  }),
});

export const { useGetBeforeAfterQuery } = beforeAfterApi;
