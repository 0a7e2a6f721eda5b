import type { FeedbackPage } from '@htm/contracts/admin';
import { api } from '../../../lib/api';

/** GET /api/admin/feedback: what visitors and users sent through 'Send Feedback', newest first. */
const feedbackApi = api.injectEndpoints({
  endpoints: (build) => ({
    listFeedback: build.query<FeedbackPage, { q?: string; page: number; page_size: number }>({
      query: (params) => ({ url: '/admin/feedback', params }),
    }),
  }),
});

export const { useListFeedbackQuery } = feedbackApi;
