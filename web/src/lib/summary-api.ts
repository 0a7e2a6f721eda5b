import type { ReportSummary } from '@htm/contracts/summary';
import { api } from './api';

const summaryApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/jobs/:id/summary: what to fix first, task metrics and the reel (404 until computed). */
    getJobSummary: build.query<ReportSummary, string>({
      query: (jobId) => ({ url: `/jobs/${encodeURIComponent(jobId)}/summary` }),
      // A change of the job's report (live messages, a review) refreshes its summary too.
      providesTags: (_r, _e, id) => [{ type: 'Submission', id }],
    }),
    /** GET /api/packs/:id/summary: the same over every tester of the pack. */
    getPackSummary: build.query<ReportSummary, string>({
      query: (packId) => ({ url: `/packs/${encodeURIComponent(packId)}/summary` }),
      // The owner's merge or split (invalidates 'Pack') answers once the summary is computed again.
      providesTags: ['Job', 'Pack'],
    }),
  }),
});

export const { useGetJobSummaryQuery, useGetPackSummaryQuery } = summaryApi;
/** The cached answers without subscribing (to decide whether to keep polling). */
export const useJobSummaryState = summaryApi.endpoints.getJobSummary.useQueryState;
export const usePackSummaryState = summaryApi.endpoints.getPackSummary.useQueryState;
