import type { PackView } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';

const packApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/packs/:id: the pack's progress, its jobs and what the testers agree on. */
    getPack: build.query<PackView, string>({
      query: (id) => ({ url: `/packs/${encodeURIComponent(id)}` }),
      // Any change to the poster's jobs (live messages invalidate 'Job') refreshes the pack too.
      providesTags: ['Job'],
    }),
  }),
});

export const { useGetPackQuery } = packApi;
