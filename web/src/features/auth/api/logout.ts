import { api } from '../../../lib/api';

const logoutApi = api.injectEndpoints({
  endpoints: (build) => ({
    logout: build.mutation<{ success: boolean }, void>({
      query: () => ({ url: '/auth/logout', method: 'POST' }),
    }),
  }),
});

export const { useLogoutMutation } = logoutApi;
