import type {
  AdminSessionChecks,
  HeldSessionView,
  SessionDecisionAnswer,
} from '@htm/contracts/jobs';
import { api } from '../../../lib/api';

const adminSessionChecksApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/admin/session-checks: failed sessions waiting for the admin, oldest first. */
    listHeldSessions: build.query<HeldSessionView[], void>({
      query: () => ({ url: '/admin/session-checks', params: { status: 'held' } }),
      transformResponse: (r: AdminSessionChecks) => r.sessions,
      // Read again on any job's live message (a failed check reopens its job: 'Overview') and on
      // an appeal filed or decided ('Appeal').
      providesTags: ['Overview', 'Appeal'],
    }),
    /** POST /api/admin/session-checks/{id}/release | confirm */
    decideSession: build.mutation<
      SessionDecisionAnswer,
      { submissionId: string; decision: 'release' | 'confirm' }
    >({
      // Both routes spelled out, so the routes test can find each in the catalogue.
      query: ({ submissionId, decision }) => {
        const id = encodeURIComponent(submissionId);
        return decision === 'release'
          ? { url: `/admin/session-checks/${id}/release`, method: 'POST' }
          : { url: `/admin/session-checks/${id}/confirm`, method: 'POST' };
      },
      // The job's row changes too (a released report is submitted again): the admin's list.
      invalidatesTags: ['Overview', 'AdminJob', 'Appeal', 'Tester', 'Audit'],
    }),
  }),
});

export const { useListHeldSessionsQuery, useDecideSessionMutation } = adminSessionChecksApi;
