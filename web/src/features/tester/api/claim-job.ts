import { api } from '../../../lib/api';
import type { JobView as Job } from '@htm/contracts/jobs';

const claimApi = api.injectEndpoints({
  endpoints: (build) => ({
    claimJob: build.mutation<{ job: Job }, string>({
      query: (id) => ({ url: `/jobs/${encodeURIComponent(id)}/claim`, method: 'POST' }),
      invalidatesTags: ['AvailableJob', 'MyJob'],
    }),
  }),
});

export const { useClaimJobMutation } = claimApi;
