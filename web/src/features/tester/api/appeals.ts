import type { AppealBody, AppealView, AppealableView } from '@htm/contracts/appeals';
import { api } from '../../../lib/api';

const appealsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/appeals: the tester's strikes and ratings of 1-2 stars with reasons, and their appeals. */
    listMyMarks: build.query<AppealableView[], void>({
      query: () => ({ url: '/appeals' }),
      transformResponse: (r: { items: AppealableView[] }) => r.items,
      providesTags: ['Appeal'],
    }),
    /** POST /api/appeals */
    fileAppeal: build.mutation<{ appeal: AppealView }, AppealBody>({
      query: (body) => ({ url: '/appeals', method: 'POST', body }),
      invalidatesTags: ['Appeal'],
    }),
  }),
});

export const { useListMyMarksQuery, useFileAppealMutation } = appealsApi;
