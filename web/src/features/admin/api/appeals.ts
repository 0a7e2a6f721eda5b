import type { AppealDecisionBody, AppealView } from '@htm/contracts/appeals';
import { api } from '../../../lib/api';

const adminAppealsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/admin/appeals?status=open */
    listOpenAppeals: build.query<AppealView[], void>({
      query: () => ({ url: '/admin/appeals', params: { status: 'open' } }),
      transformResponse: (r: { appeals: AppealView[] }) => r.appeals,
      providesTags: ['Appeal'],
    }),
    /** POST /api/admin/appeals/{id}/decision */
    decideAppeal: build.mutation<{ appeal: AppealView }, AppealDecisionBody & { id: string }>({
      query: ({ id, ...body }) => ({
        url: `/admin/appeals/${encodeURIComponent(id)}/decision`,
        method: 'POST',
        body,
      }),
      invalidatesTags: ['Appeal', 'Tester', 'Audit'],
    }),
  }),
});

export const { useListOpenAppealsQuery, useDecideAppealMutation } = adminAppealsApi;
