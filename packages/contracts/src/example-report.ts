import type { JobView, SubmissionView } from './jobs.js';
import { DEFAULT_GEO_RULE } from './marketplace.js';

/**
 * The example report the landing links to (/example-report): a realistic finished job and its
 * report as the poster sees it. Shared here because the jobs service's session checks treat its
 * text as a known duplicate: a report copying it is not original.
 */
/** A realistic finished job, as its poster sees it once the results are unlocked. */
export const EXAMPLE_JOB: JobView = {
  id: '7f3c2a91-5b1e-4d0a-9c6e-2e8d1f4b7a10',
  title: 'Cake ordering on the bakery site',
  url: 'https://bakery.example',
  what_to_test:
    'Order a birthday cake for pick-up on Saturday as a first-time visitor, on your phone.',
  budget: 1,
  expected_completion_hours: 48,
  geo_rule: DEFAULT_GEO_RULE,
  requirements: [
    'Can you find the price of a 20 cm cake before adding it to the cart?',
    'Is it clear when the cake can be picked up?',
    'Does the order confirmation say what happens next?',
  ],
  status: 'completed',
  payment_status: 'paid',
  poster_id: 'example',
  tester_id: 'example',
  last_review: null,
  revision_count: 0,
  created_at: '2026-11-02T09:12:00Z',
  claimed_at: '2026-11-02T11:40:00Z',
  submitted_at: '2026-11-02T12:03:00Z',
  completed_at: '2026-11-02T18:30:00Z',
  claim_deadline_at: null,
  auto_accept_at: null,
  revision_deadline_at: null,
  fresh_eyes: true,
  assistive_tech: null,
};

export const EXAMPLE_SUBMISSION: SubmissionView = {
  id: 'example-submission',
  job_id: EXAMPLE_JOB.id,
  revision: 0,
  submitted_at: '2026-11-02T12:03:00Z',
  locked: false,
  auto_accept_at: null,
  submitted_by_snapshot: { name: 'Maya R.', location: 'USA' },
  human_preview: {
    device_used: 'iPhone 13',
    browser_used: 'Safari 18',
    key_findings_bullets: [],
    small_image_url: null,
  },
  requirement_responses: [
    {
      requirement_index: 0,
      response_text:
        'Only after I opened the cake: the list shows "from $24" but the 20 cm size is $31. I expected the list to show the size I picked.',
    },
    {
      requirement_index: 1,
      response_text:
        'Not really. The pick-up times appear only at the last step of checkout, and Saturday is greyed out without saying why (sold out? closed?).',
    },
    {
      requirement_index: 2,
      response_text:
        'Yes: "We will text you when your cake is ready". I liked that. The confirmation e-mail arrived within a minute.',
    },
  ],
  general_feedback:
    'The cakes look great and the site feels friendly. I nearly gave up twice: once when the cart icon stayed at 0 after adding the cake, and once when Saturday could not be chosen with no explanation. On a phone the "Add to cart" button is below the photos, so I scrolled a lot. Took me about 8 minutes in total.',
  file_urls: null,
  file_names: null,
  minutes_spent: 8,
  claim_to_submit_minutes: 23,
  findings: [
    {
      text: 'The cart icon still says 0 after adding a cake',
      severity: 'major',
      steps:
        '1. Open any cake\n2. Choose 20 cm and tap "Add to cart"\n3. Look at the cart icon in the header',
      expected: 'The cart shows 1 item',
      actual: 'It shows 0 until the page is reloaded; I almost ordered twice',
      at_ms: null,
      requirement_index: null,
    },
    {
      text: 'Saturday pick-up is greyed out with no reason given',
      severity: 'blocker',
      steps: '1. Add a cake to the cart\n2. Go to checkout\n3. Open the pick-up date picker',
      expected: 'Saturday can be picked, or a note says why not',
      actual: 'Saturday is disabled and nothing explains it, so I could not finish the order',
      at_ms: null,
      requirement_index: 1,
    },
    {
      text: '"Add to cart" sits below four photos on a phone',
      severity: 'minor',
      steps: null,
      expected: null,
      actual: null,
      at_ms: null,
      requirement_index: null,
    },
  ],
  recording: null,
  task_answers: [
    { requirement_index: 0, outcome: 'done', seq: 6, minutes: 2 },
    { requirement_index: 1, outcome: 'partly', seq: 3, minutes: 4 },
    { requirement_index: 2, outcome: 'done', seq: 6, minutes: 1 },
  ],
  sus: [4, 2, 4, 1, 4, 2, 5, 2, 4, 1],
};
