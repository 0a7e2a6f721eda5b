import { api } from '../../../lib/api';
import type { Job } from '../../../lib/types';

const assignApi = api.injectEndpoints({
  endpoints: (build) => ({
    assignJob: build.mutation<{ job: Job }, { jobId: string; testerId: string }>({
      query: ({ jobId, testerId }) => ({
        url: `/admin/assign/${encodeURIComponent(jobId)}/${encodeURIComponent(testerId)}`,
        method: 'POST',
      }),
      invalidatesTags: ['AdminJob', 'Job'],
    }),
  }),
});

export const { useAssignJobMutation } = assignApi;
