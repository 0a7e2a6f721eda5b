import { api } from '../../../lib/api';
import { setToken } from '../../../lib/tokens';
import type { UpdateProfileBody } from '@htm/contracts/identity';
import type { UserDto as User } from '@htm/contracts/identity';

const profileApi = api.injectEndpoints({
  endpoints: (build) => ({
    updateProfile: build.mutation<{ user: User; access_token: string }, UpdateProfileBody>({
      query: (body) => ({ url: '/users/profile', method: 'PATCH', body }),
      async onQueryStarted(_a, { queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          if (data.access_token) setToken(data.access_token);
        } catch {
          /* shown by the modal */
        }
      },
      invalidatesTags: ['Me', 'AvailableJob'],
    }),
  }),
});

export const { useUpdateProfileMutation } = profileApi;
