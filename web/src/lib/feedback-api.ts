import { api } from './api';

export interface FeedbackBody {
  email: string;
  message: string;
  page_url?: string;
}

/** POST /api/feedback: used by the landing feedback form and the Send Feedback modal. */
const feedbackApi = api.injectEndpoints({
  endpoints: (build) => ({
    sendFeedback: build.mutation<{ success: boolean; id?: string }, FeedbackBody>({
      query: (body) => ({ url: '/feedback', method: 'POST', body }),
    }),
  }),
});

export const { useSendFeedbackMutation } = feedbackApi;
