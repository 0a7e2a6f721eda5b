import { api } from '../../../lib/api';
import type { JobView as Job } from '@htm/contracts/jobs';

const completeApi = api.injectEndpoints({
  endpoints: (build) => ({
    completeJob: build.mutation<{ payment_processed: boolean; job: Job }, string>({
      query: (id) => ({ url: `/jobs/${encodeURIComponent(id)}/complete`, method: 'PATCH' }),
      invalidatesTags: ['AdminJob', 'Job', 'Overview'],
    }),
  }),
});

export const { useCompleteJobMutation } = completeApi;
