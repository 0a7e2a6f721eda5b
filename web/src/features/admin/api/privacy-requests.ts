import type { AccountDeletionDto, AdminPrivacy, DataExportDto } from '@htm/contracts/privacy';
import { api } from '../../../lib/api';

const adminPrivacyApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/admin/privacy: exports and deletions in progress (and the last month's). */
    getAdminPrivacy: build.query<AdminPrivacy, void>({
      query: () => ({ url: '/admin/privacy' }),
      providesTags: ['AdminPrivacy'],
    }),
    /** POST /api/admin/users/{id}/export: for a user who asked by e-mail (audited). */
    adminRunExport: build.mutation<{ export: DataExportDto }, string>({
      query: (id) => ({ url: `/admin/users/${encodeURIComponent(id)}/export`, method: 'POST' }),
      invalidatesTags: ['AdminPrivacy'],
    }),
    /** POST /api/admin/users/{id}/deletion: for a user who asked by e-mail (their e-mail typed; audited). */
    adminScheduleDeletion: build.mutation<
      { deletion: AccountDeletionDto },
      { id: string; email: string }
    >({
      query: ({ id, email }) => ({
        url: `/admin/users/${encodeURIComponent(id)}/deletion`,
        method: 'POST',
        body: { email },
      }),
      invalidatesTags: ['AdminPrivacy'],
    }),
  }),
});

export const {
  useGetAdminPrivacyQuery,
  useAdminRunExportMutation,
  useAdminScheduleDeletionMutation,
} = adminPrivacyApi;
