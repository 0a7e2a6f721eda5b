import type { SignInView, SignInsResponse } from '@htm/contracts/identity';
import { api } from '../../../lib/api';

const signInsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/auth/sessions: the user's active sign-ins, this browser's marked `current`. */
    listSignIns: build.query<SignInView[], void>({
      query: () => ({ url: '/auth/sessions' }),
      transformResponse: (r: SignInsResponse) => r.sessions,
      providesTags: ['SignIn'],
    }),
    /** DELETE /api/auth/sessions/{id}: ends one of them at once. */
    endSignIn: build.mutation<{ success: boolean }, string>({
      query: (id) => ({ url: `/auth/sessions/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['SignIn'],
    }),
    /** POST /api/auth/logout-all: every sign-in ends, this one included. */
    logoutEverywhere: build.mutation<{ success: boolean; ended: number }, void>({
      query: () => ({ url: '/auth/logout-all', method: 'POST' }),
    }),
  }),
});

export const { useListSignInsQuery, useEndSignInMutation, useLogoutEverywhereMutation } =
  signInsApi;
