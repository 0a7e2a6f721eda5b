import type { JobView } from '@htm/contracts/jobs';

/** A paid job as the API answers it, claimed by tester `t`; `over` changes what a test is about. */
export function jobView(over: Partial<JobView> = {}): JobView {
  return {
    id: 'job-1',
    title: 'Bakery',
    url: 'https://bakery.example',
    what_to_test: 'Order a cake',
    budget: 1,
    expected_completion_hours: 48,
    geo_rule: 'us_pr',
    requirements: ['Find the price'],
    status: 'claimed',
    payment_status: 'paid',
    poster_id: 'p',
    tester_id: 't',
    last_review: null,
    revision_count: 0,
    created_at: '2030-01-01T00:00:00Z',
    claimed_at: null,
    submitted_at: null,
    completed_at: null,
    claim_deadline_at: null,
    auto_accept_at: null,
    revision_deadline_at: null,
    fresh_eyes: false,
    assistive_tech: null,
    ...over,
  };
}
