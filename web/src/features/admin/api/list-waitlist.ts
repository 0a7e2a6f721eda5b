import type { WaitlistEntryDto as WaitlistEntry, WaitlistPage } from '@htm/contracts/admin';
import { api } from '../../../lib/api';

export type { WaitlistEntry, WaitlistPage };

const waitlistApi = api.injectEndpoints({
  endpoints: (build) => ({
    listWaitlist: build.query<
      WaitlistPage,
      { kind: 'signup' | 'job_request' | 'waitlist'; page: number; page_size: number; q?: string }
    >({
      query: (params) => ({ url: '/admin/waitlist', params }),
      providesTags: ['Waitlist'],
    }),
    updateWaitlistEntry: build.mutation<unknown, { id: string; approved: boolean }>({
      query: ({ id, approved }) => ({
        url: `/admin/waitlist/${encodeURIComponent(id)}`,
        method: 'PATCH',
        body: { approved },
      }),
      invalidatesTags: ['Waitlist'],
    }),
  }),
});

export const { useListWaitlistQuery, useUpdateWaitlistEntryMutation } = waitlistApi;
