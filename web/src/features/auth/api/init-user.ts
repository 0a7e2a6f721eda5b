import { api } from '../../../lib/api';
import { setToken } from '../../../lib/tokens';
import type { InitUserBody, UserWithTokenResponse } from '@htm/contracts/identity';

export type { InitUserBody };

const initApi = api.injectEndpoints({
  endpoints: (build) => ({
    initUser: build.mutation<UserWithTokenResponse, InitUserBody>({
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
