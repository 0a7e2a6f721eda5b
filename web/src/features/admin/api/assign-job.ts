import { api } from '../../../lib/api';
import { answeredJob } from '../../../lib/job-cache';
import type { JobView as Job } from '@htm/contracts/jobs';

/** The admin "accepts or assigns" (spec): POST /api/jobs/{id}/accept naming the tester. */
const assignApi = api.injectEndpoints({
  endpoints: (build) => ({
    assignJob: build.mutation<{ job: Job }, { jobId: string; testerId: string }>({
      query: ({ jobId, testerId }) => ({
        url: `/jobs/${encodeURIComponent(jobId)}/accept`,
        method: 'POST',
        body: { tester_id: testerId },
      }),
      onQueryStarted: ({ jobId }, lifecycle) => void answeredJob(jobId, lifecycle),
    }),
  }),
});

export const { useAssignJobMutation } = assignApi;
