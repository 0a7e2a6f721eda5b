import { api } from '../../../lib/api';

export interface FeedbackEntry {
  id: string;
  email: string;
  message: string;
  page_url: string | null;
  created_at: string;
}

/** GET /api/admin/feedback: what visitors and users sent through 'Send Feedback', newest first. */
const feedbackApi = api.injectEndpoints({
  endpoints: (build) => ({
    listFeedback: build.query<
      { feedback: FeedbackEntry[]; total: number; page: number; page_size: number },
      { q?: string; page: number; page_size: number }
    >({
      query: (params) => ({ url: '/admin/feedback', params }),
    }),
  }),
});

export const { useListFeedbackQuery } = feedbackApi;
