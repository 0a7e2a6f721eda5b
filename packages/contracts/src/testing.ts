/** Fixtures for tests (never imported by the product): the same data in every service's and the web app's tests. */
import type { JobView } from './jobs.js';
import { DEFAULT_GEO_RULE } from './marketplace.js';
import type { ReportSummary } from './summary.js';

/**
 * A pack's summary for tests (issue #51): two problems (one seen by 3 of 5 testers with two
 * moments and a screenshot, one cosmetic), what worked, a thing to check answered and one not,
 * SUS, and two reel clips. `at(path)` makes its links ('files/shot-1', 'recordings/rec-1').
 */
export const summaryFixture = (at: (path: string) => string): ReportSummary => ({
  generated_at: '2026-03-02T10:00:00Z',
  problems: [
    {
      title: 'Checkout forces account creation',
      severity: 'blocker',
      testers_hit: 3,
      testers_total: 5,
      requirement_index: 0,
      machine_findings: [
        {
          key: 'a11y:label',
          topic: 'accessibility',
          impact: 'serious',
          text: '2 form fields have no label',
        },
      ],
      evidence: [
        {
          submission_id: 'aaaaaaaa-0000-4000-8000-000000000001',
          finding_index: 0,
          at_ms: 30_000,
          screenshot_url: at('files/shot-1'),
          text: 'Checkout forces account creation',
          tester: 'Sam',
          recording_url: at('recordings/rec-1'),
        },
        {
          submission_id: 'aaaaaaaa-0000-4000-8000-000000000002',
          finding_index: 1,
          at_ms: 42_000,
          screenshot_url: null,
          text: 'Must create an account to check out',
          tester: 'Kim',
          recording_url: at('recordings/rec-2'),
        },
      ],
    },
    {
      title: 'The logo is blurry',
      severity: 'cosmetic',
      testers_hit: 1,
      testers_total: 5,
      requirement_index: null,
      evidence: [
        {
          submission_id: 'aaaaaaaa-0000-4000-8000-000000000001',
          finding_index: 1,
          at_ms: null,
          screenshot_url: null,
          text: 'The logo is blurry',
          tester: 'Sam',
          recording_url: null,
        },
      ],
    },
  ],
  worked: ['Find the shipping costs: done by 3 testers'],
  tasks: [
    {
      requirement_index: 0,
      text: 'Buy a product as a new customer',
      success_rate: 0.5,
      seq_mean: 3.5,
      median_time_ms: 240_000,
      n: 2,
      seq_n: 2,
      sentence: 'Harder than most sites (3.5 of 7, 2 testers).',
    },
    {
      requirement_index: 1,
      text: 'Find the shipping costs',
      success_rate: null,
      seq_mean: null,
      median_time_ms: null,
      n: 0,
      seq_n: 0,
      sentence: 'No one rated how easy it was.',
    },
  ],
  sus: {
    mean: 72.5,
    n: 2,
    sentence: 'More usable than most sites (72.5 of 100, the average is 68; 2 testers).',
  },
  reel: [
    {
      recording_id: 'rec-1',
      start_ms: 25_000,
      end_ms: 40_000,
      caption: 'Checkout forces account creation',
      url: at('recordings/rec-1'),
    },
    {
      recording_id: 'rec-3',
      start_ms: 0,
      end_ms: 12_000,
      caption: 'Pay <button> does nothing',
      url: at('recordings/rec-3'),
    },
  ],
  locked: false,
});

/** A paid job as the API answers it, claimed by tester `t` of poster `p`; `over` changes what a test is about. */
export function jobViewFixture(over: Partial<JobView> = {}): JobView {
  return {
    id: 'job-1',
    title: 'Bakery',
    url: 'https://bakery.example',
    what_to_test: 'Order a cake',
    budget: 1,
    expected_completion_hours: 48,
    geo_rule: DEFAULT_GEO_RULE,
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
