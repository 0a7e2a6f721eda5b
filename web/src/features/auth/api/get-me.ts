import { api } from '../../../lib/api';
import type { UserDto as User } from '@htm/contracts/identity';

const meApi = api.injectEndpoints({
  endpoints: (build) => ({
    getMe: build.query<User, void>({
      query: () => ({ url: '/me' }),
      transformResponse: (r: User | { user: User }) =>
        'user' in r && r.user ? r.user : (r as User),
      providesTags: ['Me'],
    }),
  }),
});

export const { useGetMeQuery } = meApi;
