import type { TesterSessionChecks } from '@htm/contracts/jobs';
import { api } from '../../../lib/api';

/** GET /api/tester/session-checks: the tester's reports whose check found something, with the reasons. */
const sessionChecksApi = api.injectEndpoints({
  endpoints: (build) => ({
    getSessionChecks: build.query<TesterSessionChecks, void>({
      query: () => ({ url: '/tester/session-checks' }),
      // Read again with the tester's record (a check that holds a report takes the job away) and
      // their appeals (a decision releases or confirms a failed one).
      providesTags: ['Standing', 'Appeal'],
    }),
  }),
});

export const { useGetSessionChecksQuery } = sessionChecksApi;
