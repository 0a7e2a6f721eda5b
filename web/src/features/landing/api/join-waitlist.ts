import type { WaitlistBody } from '@htm/contracts/admin';
import { api } from '../../../lib/api';

export type { WaitlistBody };

/** POST /api/waitlist: waitlist form, tester signup and job requests (role 'Site owner'). */
const waitlistApi = api.injectEndpoints({
  endpoints: (build) => ({
    joinWaitlist: build.mutation<{ success: true }, WaitlistBody>({
      query: (body) => ({ url: '/waitlist', method: 'POST', body }),
    }),
  }),
});

export const { useJoinWaitlistMutation } = waitlistApi;
