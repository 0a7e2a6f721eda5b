import { api } from '../../../lib/api';

export interface WaitlistEntry {
  id: string;
  email: string;
  name: string | null;
  role: string;
  url: string | null;
  note: string | null;
  approved: boolean;
  created_at: string;
}
export interface WaitlistPage {
  entries: WaitlistEntry[];
  total: number;
  page: number;
  page_size: number;
}

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
