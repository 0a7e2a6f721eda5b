import { api } from '../../../lib/api';
import { answeredJob, dropJobs } from '../../../lib/job-cache';
import type { JobView as Job } from '@htm/contracts/jobs';

export const claimApi = api.injectEndpoints({
  endpoints: (build) => ({
    claimJob: build.mutation<{ job: Job }, string>({
      query: (id) => ({ url: `/jobs/${encodeURIComponent(id)}/claim`, method: 'POST' }),
      // The answer is the job as it now is: My Jobs gains it and Available Jobs loses it, with the
      // rest of its pack (one place per tester), and neither list is read again. Not optimistic:
      // the server may give another slot of a pack.
      async onQueryStarted(id, lifecycle) {
        const job = await answeredJob(id, lifecycle);
        if (job?.pack_id)
          lifecycle.dispatch(dropJobs('listAvailableJobs', (j) => j.pack_id === job.pack_id));
      },
    }),
  }),
});

export const { useClaimJobMutation } = claimApi;
