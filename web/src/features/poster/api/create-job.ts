import type { AssistiveTech } from '@htm/contracts/identity';
import { api } from '../../../lib/api';
import type { GeoRule, Job } from '../../../lib/types';

export interface CreateJobBody {
  title: string;
  url: string;
  what_to_test: string;
  budget: 1;
  expected_completion_hours: number;
  geo_rule: GeoRule;
  requirements: string[];
  fresh_eyes: boolean;
  assistive_tech: AssistiveTech | null;
}
export interface CheckoutAnswer {
  checkout_url: string | null;
  session_id: string | null;
  job: Job;
  payment_error?: string;
}

const createJobApi = api.injectEndpoints({
  endpoints: (build) => ({
    createJob: build.mutation<CheckoutAnswer, CreateJobBody>({
      query: (body) => ({ url: '/jobs', method: 'POST', body }),
      invalidatesTags: ['Job'],
    }),
  }),
});

export const { useCreateJobMutation } = createJobApi;
