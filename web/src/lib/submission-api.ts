import type { SubmissionView } from '@htm/contracts/jobs';
import { api } from './api';

const submissionApi = api.injectEndpoints({
  endpoints: (build) => ({
    getSubmission: build.query<SubmissionView, string>({
      query: (jobId) => ({ url: `/jobs/${encodeURIComponent(jobId)}/submission` }),
      transformResponse: (r: SubmissionView | { submission: SubmissionView }) =>
        'submission' in r && r.submission ? r.submission : (r as SubmissionView),
      providesTags: (_r, _e, id) => [{ type: 'Submission', id }],
    }),
  }),
});

export const { useGetSubmissionQuery } = submissionApi;
