import type { TesterStandingView } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';

/** GET /api/tester/standing: jobs completed, acceptance rate, average rating, level and what the next level needs. */
const standingApi = api.injectEndpoints({
  endpoints: (build) => ({
    getStanding: build.query<TesterStandingView, void>({
      query: () => ({ url: '/tester/standing' }),
      // Refreshed whenever the tester's jobs are (a claim, a submission, an acceptance, live messages).
      providesTags: ['MyJob'],
    }),
  }),
});

export const { useGetStandingQuery } = standingApi;
