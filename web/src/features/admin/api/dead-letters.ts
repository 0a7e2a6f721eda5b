import type { DeadLettersView, ReplayDeadLettersResult } from '@htm/contracts/admin';
import { api } from '../../../lib/api';

const deadLettersApi = api.injectEndpoints({
  endpoints: (build) => ({
    getDeadLetters: build.query<DeadLettersView, void>({
      query: () => ({ url: '/admin/dead-letters' }),
      providesTags: ['DeadLetters'],
    }),
    replayDeadLetters: build.mutation<ReplayDeadLettersResult, void>({
      query: () => ({ url: '/admin/dead-letters/replay', method: 'POST' }),
      // A replayed event changes jobs and money: refresh what the Overview shows.
      invalidatesTags: ['DeadLetters', 'Overview', 'AdminJob', 'Job'],
    }),
  }),
});

export const { useGetDeadLettersQuery, useReplayDeadLettersMutation } = deadLettersApi;
