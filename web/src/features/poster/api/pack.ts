import type { PackView } from '@htm/contracts/jobs';
import type { RegroupBody } from '@htm/contracts/summary';
import { api } from '../../../lib/api';
import { jobTags } from '../../../lib/job-cache';

const packApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/packs/:id: the pack's progress, its jobs and what the testers agree on. */
    getPack: build.query<PackView, string>({
      query: (id) => ({ url: `/packs/${encodeURIComponent(id)}` }),
      // A change to one of its jobs reads the pack again (its progress and what the testers agree on).
      providesTags: (r) => jobTags(r?.jobs ?? [], { type: 'Job', id: 'LIST' }, 'Pack'),
    }),
    /** POST /api/packs/:id/groups: the owner merges problems or splits a finding off one. */
    regroupPack: build.mutation<{ requested: true }, { packId: string; body: RegroupBody }>({
      query: ({ packId, body }) => ({
        url: `/packs/${encodeURIComponent(packId)}/groups`,
        method: 'POST',
        body,
      }),
      invalidatesTags: ['Pack'],
    }),
  }),
});

export const { useGetPackQuery, useRegroupPackMutation } = packApi;
