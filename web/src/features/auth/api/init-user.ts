import { api } from '../../../lib/api';
import { setToken } from '../../../lib/tokens';
import type { User } from '../../../lib/types';

export interface InitUserBody {
  type: 'poster' | 'tester';
  location: 'USA' | 'PR';
  country?: 'US' | 'PR' | 'CA';
}

const initApi = api.injectEndpoints({
  endpoints: (build) => ({
    initUser: build.mutation<{ user: User; access_token: string }, InitUserBody>({
      query: (body) => ({ url: '/users/init', method: 'POST', body }),
      async onQueryStarted(_arg, { queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          if (data.access_token) setToken(data.access_token);
        } catch {
          /* shown by the form */
        }
      },
      invalidatesTags: ['Me'],
    }),
  }),
});

export const { useInitUserMutation } = initApi;
