import type { JobView } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';

/**
 * The paid job as the poster's job list has it (GET /api/jobs), with the other slots of its pack:
 * the success page says how many testers were ordered and when results are expected.
 */
const paidJobApi = api.injectEndpoints({
  endpoints: (build) => ({
    getPaidJob: build.query<{ job: JobView; testers: number } | null, string>({
      query: () => ({ url: '/jobs' }),
      transformResponse: (res: { jobs?: JobView[] }, _meta, jobId) => {
        const jobs = res?.jobs ?? [];
        const job = jobs.find((j) => j.id === jobId);
        if (!job) return null;
        const testers = job.pack_id ? jobs.filter((j) => j.pack_id === job.pack_id).length : 1;
        return { job, testers };
      },
      providesTags: (r, _e, jobId) => [{ type: 'Job', id: r?.job.id ?? jobId }],
    }),
  }),
});

export const { useGetPaidJobQuery } = paidJobApi;
