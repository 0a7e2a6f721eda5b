/**
 * A known history of the marketplace as events, and the insights it must give for
 * 2026-03-01..2026-03-03. Includes a redelivered event (JobPaid of job A twice, same id) and an
 * out-of-order one (job B's JobClaimed published before its JobPaid and JobPublished).
 */
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@htm/events';
import { ev } from './support.js';

const H = 3600_000;

export function scriptedHistory(now = new Date()) {
  const [A, B, C, D, E, F] = Array.from({ length: 6 }, () => randomUUID());
  const [poster, t1, t2, t3, t4] = Array.from({ length: 5 }, () => randomUUID());
  const pack = randomUUID();
  const job = (id: string, geoRule: 'us_pr' | 'us_pr_ca' | 'global_beta', at: string | Date) =>
    ev(
      'JobCreated',
      id,
      {
        jobId: id,
        posterId: poster,
        title: `Job ${id.slice(0, 4)}`,
        url: 'https://site.example',
        geoRule,
        budgetCents: 100,
        expectedCompletionHours: 48,
      },
      at,
    );
  const paid = (
    id: string,
    geoRule: 'us_pr' | 'us_pr_ca' | 'global_beta',
    at: string | Date,
    eventId?: string,
  ): EventEnvelope[] => {
    const paidAt = new Date(at).toISOString();
    return [
      ev(
        'JobPaid',
        id,
        { jobId: id, sessionId: `cs_${id}`, posterId: poster, amountCents: 100, paidAt },
        at,
        eventId,
      ),
      ev('JobPublished', id, { jobId: id, posterId: poster, geoRule, paidAt }, at),
    ];
  };
  const claim = (id: string, tester: string, at: string | Date) => {
    const claimedAt = new Date(at).toISOString();
    return ev(
      'JobClaimed',
      id,
      {
        jobId: id,
        testerId: tester,
        claimedAt,
        deadlineAt: claimedAt,
        by: 'tester',
        posterId: poster,
      },
      at,
    );
  };
  const submit = (id: string, tester: string, at: string, revision: number) =>
    ev(
      'WorkSubmitted',
      id,
      {
        jobId: id,
        testerId: tester,
        submissionId: randomUUID(),
        revision,
        submittedAt: at,
        autoAcceptAt: at,
        posterId: poster,
      },
      at,
    );
  const accept = (
    id: string,
    tester: string,
    at: string,
    acceptedBy: 'poster' | 'admin' | 'auto',
  ) => [
    ev(
      'SubmissionAccepted',
      id,
      { jobId: id, testerId: tester, posterId: poster, title: 't', acceptedBy, acceptedAt: at },
      at,
    ),
    ev(
      'EarningRecorded',
      id,
      {
        jobId: id,
        testerId: tester,
        amountCents: 82,
        acceptedBy,
        platformFeeCents: 18,
        acceptedAt: at,
      },
      at,
    ),
  ];
  const approval = (
    id: string,
    approved: boolean,
    country: 'US' | 'PR' | 'CA' | null,
    at: string,
  ) =>
    ev(
      'TesterApprovalChanged',
      id,
      { userId: id, email: `${id}@gmail.com`, name: 'T', approved, country, reason: 'admin' },
      at,
    );

  const aPaidId = randomUUID();
  const aPaid = paid(A, 'us_pr', '2026-03-01T10:00:00Z', aPaidId);
  const bPaid = paid(B, 'us_pr_ca', '2026-03-01T11:00:00Z');
  const ago = (h: number) => new Date(now.getTime() - h * H);

  const summarized = (id: string, lastSubmissionAt: string, summarizedAt: string) =>
    ev(
      'ReportSummarized',
      id,
      {
        scope: 'job',
        scopeId: id,
        jobIds: [id],
        posterId: poster,
        title: `Job ${id.slice(0, 4)}`,
        testersTotal: 1,
        problems: 2,
        top: [],
        lastSubmissionAt,
        summarizedAt,
      },
      summarizedAt,
    );
  const checked = (
    id: string,
    tester: string,
    verdict: 'pass' | 'borderline' | 'fail',
    at: string,
  ): EventEnvelope[] => {
    const submissionId = randomUUID();
    const reasons =
      verdict === 'pass'
        ? []
        : verdict === 'borderline'
          ? (['unanswered'] as const)
          : (['copied_text'] as const);
    return [
      ev(
        'SessionChecked',
        id,
        {
          submissionId,
          jobId: id,
          testerId: tester,
          posterId: poster,
          verdict,
          reasons: [...reasons],
          metrics: {
            recordingMs: null,
            talkPct: null,
            longestIdleMs: null,
            itemsTotal: 1,
            itemsCovered: 1,
            maxContainment: 0.1,
          },
          checkedAt: at,
        },
        at,
      ),
      ...(verdict === 'fail'
        ? [
            ev(
              'ReplacementRequested',
              id,
              {
                jobId: id,
                submissionId,
                testerId: tester,
                posterId: poster,
                requestedBy: 'check',
                reasons: [...reasons],
                requestedAt: at,
              },
              at,
            ),
          ]
        : []),
    ];
  };
  const events: EventEnvelope[] = [
    approval(t1, true, 'US', '2026-02-20T00:00:00Z'),
    approval(t2, true, 'CA', '2026-02-20T00:00:00Z'),
    // t3: approved, later unapproved; the later event arrives first and the older one changes nothing
    approval(t3, false, 'PR', '2026-02-25T00:00:00Z'),
    approval(t3, true, 'PR', '2026-02-21T00:00:00Z'),
    ev(
      'UserRoleChosen',
      t4,
      {
        userId: t4,
        email: 'x@gmail.com',
        name: 'P',
        type: 'poster',
        location: 'USA',
        country: 'US',
        approved: false,
      },
      '2026-02-20T00:00:00Z',
    ),
    // job A: paid 10:00, claimed after 2 h, first result after 6 h, accepted by the poster the next day, paid out
    job(A, 'us_pr', '2026-03-01T09:00:00Z'),
    ...aPaid,
    aPaid[0], // redelivered JobPaid (same id)
    claim(A, t1, '2026-03-01T12:00:00Z'),
    submit(A, t1, '2026-03-01T16:00:00Z', 0),
    ...accept(A, t1, '2026-03-02T09:00:00Z', 'poster'),
    ev(
      'TesterPaid',
      t1,
      {
        testerId: t1,
        payoutId: randomUUID(),
        amountCents: 82,
        jobIds: [A],
        paidAt: '2026-03-03T12:00:00Z',
      },
      '2026-03-03T12:00:00Z',
    ),
    // job B: its claim arrives before its payment (out of order); claimed 24 h after paid, result after 28 h, one revision, auto-accepted
    job(B, 'us_pr_ca', '2026-03-01T10:30:00Z'),
    claim(B, t2, '2026-03-02T11:00:00Z'),
    ...bPaid,
    submit(B, t2, '2026-03-02T15:00:00Z', 0),
    ev(
      'RevisionRequested',
      B,
      {
        jobId: B,
        testerId: t2,
        reason: 'more',
        requestedAt: '2026-03-02T16:00:00Z',
        deadlineAt: '2026-03-04T16:00:00Z',
        posterId: poster,
      },
      '2026-03-02T16:00:00Z',
    ),
    submit(B, t2, '2026-03-02T18:00:00Z', 1),
    ...accept(B, t2, '2026-03-03T10:00:00Z', 'auto'),
    // job C: claimed after 1 h, released: waiting again since 2026-03-02 20:00
    job(C, 'global_beta', '2026-03-02T07:00:00Z'),
    ...paid(C, 'global_beta', '2026-03-02T08:00:00Z'),
    claim(C, t2, '2026-03-02T09:00:00Z'),
    ev(
      'JobReleased',
      C,
      { jobId: C, testerId: t2, reason: 'claim_timeout', posterId: poster },
      '2026-03-02T20:00:00Z',
    ),
    // job D: posted, never paid
    job(D, 'us_pr', '2026-03-03T08:00:00Z'),
    // a duplicate payment given back
    ev(
      'PaymentRefunded',
      A,
      {
        jobId: A,
        sessionId: 'cs_dup',
        posterId: poster,
        amountCents: 100,
        reason: 'duplicate',
        refundedAt: '2026-03-03T13:00:00Z',
      },
      '2026-03-03T13:00:00Z',
    ),
    // a pack of three testers ordered (its jobs are not part of this history), one slot refunded unfilled
    ev(
      'PackCreated',
      pack,
      {
        packId: pack,
        posterId: poster,
        size: 3,
        jobIds: [randomUUID(), randomUUID(), randomUUID()],
        url: 'https://shop.example',
      },
      '2026-03-02T10:00:00Z',
    ),
    ev(
      'PaymentRefunded',
      pack,
      {
        jobId: pack,
        sessionId: 'cs_pack',
        posterId: poster,
        amountCents: 100,
        reason: 'pack_slot_unfilled',
        refundedAt: '2026-03-03T14:00:00Z',
        packId: pack,
      },
      '2026-03-03T14:00:00Z',
    ),
    // report summaries: A's 10 s after its report, B's 30 s after; A's computed again hours later
    // for the same report (an acceptance) is not a new time to summary.
    summarized(A, '2026-03-01T09:00:00Z', '2026-03-01T09:00:10Z'),
    summarized(B, '2026-03-02T11:00:00Z', '2026-03-02T11:00:30Z'),
    summarized(A, '2026-03-01T09:00:00Z', '2026-03-02T15:00:00Z'),
    // session checks: one passed on Sunday 1 March; one failed (and replaced free) and one
    // borderline in the week from Monday 2 March
    ...checked(A, t1, 'pass', '2026-03-01T09:00:05Z'),
    ...checked(C, t3, 'fail', '2026-03-02T12:00:00Z'),
    ...checked(B, t2, 'borderline', '2026-03-03T09:00:00Z'),
    // today: job E paid 5 h ago and waiting; job F claimed an hour ago by t1 (active in the last 7 days)
    job(E, 'us_pr', ago(6)),
    ...paid(E, 'us_pr', ago(5)),
    job(F, 'us_pr', ago(3)),
    ...paid(F, 'us_pr', ago(2)),
    claim(F, t1, ago(1)),
  ];
  const distinct = new Set(events.map((e) => e.id)).size;
  return { events, distinct, jobs: { A, B, C, D, E, F } };
}

/** The insights of the scripted history for 2026-03-01..2026-03-03. */
export const EXPECTED = {
  days: [
    {
      date: '2026-03-01',
      posted: 2,
      paid: 2,
      claimed: 1,
      submitted: 1,
      completed: 0,
      revenue_cents: 200,
      earnings_cents: 0,
      payouts_cents: 0,
    },
    {
      date: '2026-03-02',
      posted: 1,
      paid: 1,
      claimed: 2,
      submitted: 1,
      completed: 1,
      revenue_cents: 100,
      earnings_cents: 82,
      payouts_cents: 0,
    },
    {
      date: '2026-03-03',
      posted: 1,
      paid: 0,
      claimed: 0,
      submitted: 0,
      completed: 1,
      revenue_cents: 0,
      earnings_cents: 82,
      payouts_cents: 82,
    },
  ],
  funnel: { posted: 4, paid: 3, claimed: 3, submitted: 2, completed: 2 },
  acceptance_rate: 1,
  revision_rate: 0.5,
  // C (since 2026-03-02) and E (5 h); F is held by t1
  waiting_jobs: [
    { older_than_hours: 0, count: 2 },
    { older_than_hours: 1, count: 2 },
    { older_than_hours: 4, count: 2 },
    { older_than_hours: 12, count: 1 },
    { older_than_hours: 24, count: 1 },
    { older_than_hours: 48, count: 1 },
  ],
  testers: { approved_by_country: { US: 1, CA: 1 }, active_7d: 1 },
  demand_by_country: { US: 3, PR: 3, CA: 2 },
  totals: {
    revenue_cents: 300,
    earnings_cents: 164,
    platform_fee_cents: 36,
    payouts_cents: 82,
    // the duplicate payment of A and the pack's unfilled slot
    refunds_cents: 200,
  },
  packs: { ordered: 1, testers: 3, slots_refunded: 1 },
  /** paid -> first claim: 1 h, 2 h, 24 h; paid -> first result: 6 h, 28 h (percentiles at most 5% high). */
  time_to_claim_ms: { p50: 2 * H, p90: 24 * H },
  time_to_result_ms: { p50: 6 * H, p90: 28 * H },
  /** last submission -> summary: 10 s and 30 s (A's recomputation not counted). */
  time_to_summary_ms: { p50: 10_000, p90: 30_000 },
  session_checks: {
    checked: 3,
    borderline: 1,
    failed: 1,
    replaced: 1,
    replacement_rate: 0.3333,
    weeks: [
      { week_start: '2026-02-23', checked: 1, replaced: 0, replacement_rate: 0 },
      { week_start: '2026-03-02', checked: 2, replaced: 1, replacement_rate: 0.5 },
    ],
  },
};
