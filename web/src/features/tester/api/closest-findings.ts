import type { ClosestFindingsResponse } from '@htm/contracts/summary';
import { api } from '../../../lib/api';

const closestApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/jobs/:id/closest-findings: the pack's closest findings to those the tester wrote. */
    closestFindings: build.mutation<ClosestFindingsResponse, { jobId: string; texts: string[] }>({
      query: ({ jobId, texts }) => ({
        url: `/jobs/${encodeURIComponent(jobId)}/closest-findings`,
        method: 'POST',
        body: { texts },
      }),
    }),
  }),
});

export const { useClosestFindingsMutation } = closestApi;
