import type { SiteCheckResponse } from '@htm/contracts/site-check';
import { api } from './api';

const siteCheckApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/jobs/:id/site-check: the machine health check (poster, holding tester, admin). */
    getSiteCheck: build.query<SiteCheckResponse, string>({
      query: (jobId) => ({ url: `/jobs/${encodeURIComponent(jobId)}/site-check` }),
      providesTags: (_r, _e, jobId) => [{ type: 'SiteCheck', id: jobId }],
    }),
  }),
});

export const { useGetSiteCheckQuery } = siteCheckApi;
/** The cached answer without subscribing (to decide whether to keep polling). */
export const useSiteCheckState = siteCheckApi.endpoints.getSiteCheck.useQueryState;
