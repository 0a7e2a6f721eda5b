import { api } from '../../../lib/api';
import { answeredJob } from '../../../lib/job-cache';
import type { JobView as Job } from '@htm/contracts/jobs';

const completeApi = api.injectEndpoints({
  endpoints: (build) => ({
    completeJob: build.mutation<{ payment_processed: boolean; job: Job }, string>({
      query: (id) => ({ url: `/jobs/${encodeURIComponent(id)}/complete`, method: 'PATCH' }),
      // The admin accepts: shown at once where the rules allow, then the answer; money moved.
      onQueryStarted: (id, lifecycle) => void answeredJob(id, lifecycle, 'accept'),
      invalidatesTags: ['Overview'],
    }),
  }),
});

export const { useCompleteJobMutation } = completeApi;
