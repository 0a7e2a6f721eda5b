import { api } from '../../../lib/api';

export interface WaitlistBody {
  email: string;
  role: string;
  url?: string;
  note?: string;
  name?: string;
}

/** POST /api/waitlist: waitlist form, tester signup and job requests (role 'Site owner'). */
const waitlistApi = api.injectEndpoints({
  endpoints: (build) => ({
    joinWaitlist: build.mutation<{ success: boolean }, WaitlistBody>({
      query: (body) => ({ url: '/waitlist', method: 'POST', body }),
    }),
  }),
});

export const { useJoinWaitlistMutation } = waitlistApi;
