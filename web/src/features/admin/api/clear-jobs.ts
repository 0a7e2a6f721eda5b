import type { ClearJobsPreview, ClearJobsResult } from '@htm/contracts/admin';
import { api } from '../../../lib/api';

const clearApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** Step 1: what clear-all would delete and refund, with a confirmation for exactly that (5 minutes, single use). */
    previewClearJobs: build.mutation<ClearJobsPreview, void>({
      query: () => ({ url: '/admin/clear-jobs/preview', method: 'POST' }),
    }),
    /** Step 2: clear, with the preview's confirmation (409 when the jobs changed since). */
    clearJobs: build.mutation<ClearJobsResult, { confirmation: string }>({
      query: (body) => ({ url: '/admin/clear-jobs', method: 'POST', body }),
      invalidatesTags: ['AdminJob', 'Job', 'Waitlist', 'Overview', 'Audit'],
    }),
  }),
});

export const { usePreviewClearJobsMutation, useClearJobsMutation } = clearApi;
