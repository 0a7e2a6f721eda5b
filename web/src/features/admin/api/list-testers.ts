import type { TesterDto } from '@htm/contracts/identity';
import { api } from '../../../lib/api';

const testersApi = api.injectEndpoints({
  endpoints: (build) => ({
    listTesters: build.query<TesterDto[], void>({
      query: () => ({ url: '/admin/testers' }),
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
