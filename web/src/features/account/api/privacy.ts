import type {
  AccountDeletionDto,
  DataExportDto,
  DeletionBody,
  PrivacyStatus,
} from '@htm/contracts/privacy';
import { api } from '../../../lib/api';

const privacyApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/me/privacy: the latest data export (progress, link expiry) and account deletion. */
    getPrivacy: build.query<PrivacyStatus, void>({
      query: () => ({ url: '/me/privacy' }),
      providesTags: ['Privacy'],
    }),
    /** POST /api/me/exports: start building the archive (one a day); e-mailed when ready. */
    requestExport: build.mutation<{ export: DataExportDto }, void>({
      query: () => ({ url: '/me/exports', method: 'POST' }),
      invalidatesTags: ['Privacy'],
    }),
    /** POST /api/me/deletion: the account's e-mail typed to confirm; every sign-in ends. */
    requestDeletion: build.mutation<{ deletion: AccountDeletionDto }, DeletionBody>({
      query: (body) => ({ url: '/me/deletion', method: 'POST', body }),
    }),
  }),
});

export const { useGetPrivacyQuery, useRequestExportMutation, useRequestDeletionMutation } =
  privacyApi;
