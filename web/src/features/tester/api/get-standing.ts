import type { TesterStandingView } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';

/** GET /api/tester/standing: jobs completed, acceptance rate, average rating, level and what the next level needs. */
const standingApi = api.injectEndpoints({
  endpoints: (build) => ({
    getStanding: build.query<TesterStandingView, void>({
      query: () => ({ url: '/tester/standing' }),
      // Read again when the record changes (an acceptance, a release, a held report: lib/live.ts).
      providesTags: ['Standing'],
    }),
  }),
});

export const { useGetStandingQuery } = standingApi;
