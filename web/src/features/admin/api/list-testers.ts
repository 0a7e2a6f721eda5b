import type { AssistiveTech, TesterDto } from '@htm/contracts/identity';
import { api } from '../../../lib/api';

const testersApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** All testers; `assistive_tech` keeps those who use it. */
    listTesters: build.query<TesterDto[], { assistive_tech?: AssistiveTech } | void>({
      query: (f) => ({
        url: '/admin/testers',
        ...(f?.assistive_tech ? { params: { assistive_tech: f.assistive_tech } } : {}),
      }),
      transformResponse: (r: { testers: TesterDto[] }) => r.testers ?? [],
      providesTags: ['Tester'],
    }),
    listAvailableTesters: build.query<TesterDto[], void>({
      query: () => ({ url: '/admin/available-testers' }),
      transformResponse: (r: { testers: TesterDto[] }) => r.testers ?? [],
      providesTags: ['Tester'],
    }),
  }),
});

export const { useListTestersQuery, useListAvailableTestersQuery } = testersApi;
