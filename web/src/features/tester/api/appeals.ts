import type { AppealBody, AppealView, AppealableView } from '@htm/contracts/appeals';
import { api } from '../../../lib/api';

const appealsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/appeals: the tester's strikes, ratings of 1-2 stars and failed checks with reasons, and their appeals. */
    listMyMarks: build.query<AppealableView[], void>({
      query: () => ({ url: '/appeals' }),
      transformResponse: (r: { items: AppealableView[] }) => r.items,
      // A failed check takes the job back from the tester (a live 'job' message refreshes MyJob).
      providesTags: ['Appeal', 'MyJob'],
    }),
    /** POST /api/appeals */
    fileAppeal: build.mutation<{ appeal: AppealView }, AppealBody>({
      query: (body) => ({ url: '/appeals', method: 'POST', body }),
      invalidatesTags: ['Appeal'],
    }),
  }),
});

export const { useListMyMarksQuery, useFileAppealMutation } = appealsApi;
