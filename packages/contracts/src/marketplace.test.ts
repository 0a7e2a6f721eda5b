import { describe, expect, it } from '@jest/globals';
import {
  checkoutRefusal,
  freshEyesBlocks,
  siteHost,
  siteKey,
  geoAllows,
  geoRulesFor,
  acceptanceRatePct,
  hasPriorityAccess,
  isTopRated,
  testerLevel,
  TRUSTED,
  JOB_ACTIONS,
  JOB_STATUSES,
  LIVE_JOB_STATE,
  PLATFORM_FEE_CENTS,
  PRICE_PER_TEST_CENTS,
  refusalFor,
  REVISION_LIMIT,
  TESTER_SHARE_CENTS,
  TRANSITIONS,
  type JobAction,
  type JobStatus,
} from './marketplace.js';

const job = (status: string, paymentStatus = 'paid', revisionCount = 0) => ({
  status,
  paymentStatus,
  revisionCount,
});

/** Every (action, status) pair: allowed (its target) or the refusal a user reads. */
const EXPECTED: Record<JobAction, Record<JobStatus, string>> = {
  claim: {
    open: '→claimed',
    claimed: 'job_taken',
    submitted: 'job_taken',
    revision_requested: 'job_taken',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  assign: {
    open: '→claimed',
    claimed: 'job_taken',
    submitted: 'job_taken',
    revision_requested: 'job_taken',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  submit: {
    open: 'job_not_claimed',
    claimed: '→submitted',
    submitted: 'already_submitted',
    revision_requested: '→submitted',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  accept: {
    open: 'nothing_to_review',
    claimed: 'nothing_to_review',
    submitted: '→completed',
    revision_requested: 'revision_pending',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  auto_accept: {
    open: 'nothing_to_review',
    claimed: 'nothing_to_review',
    submitted: '→completed',
    revision_requested: 'revision_pending',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  request_revision: {
    open: 'nothing_to_review',
    claimed: 'nothing_to_review',
    submitted: '→revision_requested',
    revision_requested: 'revision_pending',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  claim_timeout: {
    open: 'stale_timer',
    claimed: '→open',
    submitted: 'stale_timer',
    revision_requested: 'stale_timer',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  revision_expired: {
    open: 'stale_timer',
    claimed: 'stale_timer',
    submitted: 'stale_timer',
    revision_requested: '→open',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  tester_unapproved: {
    open: 'stale_timer',
    claimed: '→open',
    submitted: 'stale_timer',
    revision_requested: 'stale_timer',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  close_unfilled: {
    open: '→closed',
    claimed: 'stale_timer',
    submitted: 'stale_timer',
    revision_requested: 'stale_timer',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  session_failed: {
    open: 'nothing_to_replace',
    claimed: 'nothing_to_replace',
    submitted: '→open',
    revision_requested: 'nothing_to_replace',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  replacement_requested: {
    open: 'nothing_to_replace',
    claimed: 'nothing_to_replace',
    submitted: '→open',
    revision_requested: 'nothing_to_replace',
    completed: 'job_completed',
    closed: 'job_closed',
  },
  session_released: {
    open: '→submitted',
    claimed: 'replacement_taken',
    submitted: 'replacement_taken',
    revision_requested: 'replacement_taken',
    completed: 'job_completed',
    closed: 'job_closed',
  },
};

describe('the job transition table', () => {
  const pairs = JOB_ACTIONS.flatMap((action) =>
    JOB_STATUSES.map((status) => [action, status] as const),
  );

  it('covers every action and status', () => {
    expect(pairs).toHaveLength(Object.keys(EXPECTED).length * JOB_STATUSES.length);
    expect(new Set(JOB_ACTIONS)).toEqual(new Set(Object.keys(EXPECTED)));
  });

  it.each(pairs)('%s from %s', (action, status) => {
    const refusal = refusalFor(job(status), action);
    const expected = EXPECTED[action][status];
    if (expected.startsWith('→')) {
      expect(refusal).toBeUndefined();
      expect(`→${TRANSITIONS[action].to}`).toBe(expected);
    } else {
      expect(refusal?.code).toBe(expected);
      expect(refusal?.detail).toMatch(/^[A-Z].+\.$/);
    }
  });

  it('states a refusal for every status an action cannot start from, and none for the others', () => {
    for (const action of JOB_ACTIONS) {
      const t = TRANSITIONS[action];
      for (const status of JOB_STATUSES)
        expect([action, status, !!t.refusals[status]]).toEqual([
          action,
          status,
          !t.from.includes(status),
        ]);
    }
  });

  it('never sets and clears the same column', () => {
    for (const action of JOB_ACTIONS) {
      const { sets, clears } = TRANSITIONS[action];
      expect([action, sets.filter((c) => clears.includes(c))]).toEqual([action, []]);
    }
  });

  it('refuses to claim or assign an open job whose payment has not gone through', () => {
    expect(refusalFor(job('open', 'unpaid'), 'claim')).toEqual({
      code: 'job_not_paid',
      detail: 'This job is not live yet: its payment has not gone through.',
    });
    expect(refusalFor(job('open', 'unpaid'), 'assign')?.code).toBe('job_not_paid');
    // Only claims need the payment: a paid state is not checked for the other actions.
    expect(refusalFor(job('submitted', 'unpaid'), 'accept')).toBeUndefined();
  });

  it(`allows ${REVISION_LIMIT} revision per job, then asks the poster to accept`, () => {
    expect(
      refusalFor(job('submitted', 'paid', REVISION_LIMIT - 1), 'request_revision'),
    ).toBeUndefined();
    expect(refusalFor(job('submitted', 'paid', REVISION_LIMIT), 'request_revision')).toEqual({
      code: 'revision_limit',
      detail: 'Only one revision is allowed per job. Please accept the work.',
    });
    expect(refusalFor(job('submitted', 'paid', REVISION_LIMIT), 'accept')).toBeUndefined();
  });

  it("reads the spec's in_progress as claimed and rejects an unknown status", () => {
    expect(refusalFor(job('in_progress'), 'submit')).toBeUndefined();
    expect(() => refusalFor(job('lost'), 'submit')).toThrow('unknown job status lost');
  });

  it('refuses a second checkout of a paid job', () => {
    expect(checkoutRefusal({ paymentStatus: 'unpaid' })).toBeUndefined();
    expect(checkoutRefusal({ paymentStatus: 'paid' })?.code).toBe('already_paid');
  });

  it('tells the live channel the status each event leaves the job in', () => {
    expect(LIVE_JOB_STATE.JobClaimed).toEqual({ status: 'claimed', payment_status: 'paid' });
    expect(LIVE_JOB_STATE.WorkSubmitted.status).toBe('submitted');
    expect(LIVE_JOB_STATE.RevisionRequested.status).toBe('revision_requested');
    expect(LIVE_JOB_STATE.SubmissionAccepted.status).toBe('completed');
    expect(LIVE_JOB_STATE.JobReleased.status).toBe('open');
    expect(LIVE_JOB_STATE.CheckoutCancelled).toEqual({ status: 'open', payment_status: 'unpaid' });
    // Actions sharing an event agree on where it leaves the job.
    for (const a of JOB_ACTIONS)
      expect(LIVE_JOB_STATE[TRANSITIONS[a].event].status).toBe(TRANSITIONS[a].to);
  });
});

describe('the other rules', () => {
  it('splits the $1 price into $0.82 for the tester and $0.18 for the platform', () => {
    expect([PRICE_PER_TEST_CENTS, TESTER_SHARE_CENTS, PLATFORM_FEE_CENTS]).toEqual([100, 82, 18]);
  });

  it.each([
    ['us_pr', 'US', true],
    ['us_pr', 'PR', true],
    ['us_pr', 'CA', false],
    ['us_pr_ca', 'CA', true],
    ['us_pr_ca', null, false],
    ['global_beta', 'CA', true],
    ['global_beta', null, true],
    ['mars_only', 'US', false],
  ] as const)('geo rule %s admits a tester from %s: %s', (rule, country, allowed) => {
    expect(geoAllows(rule, country)).toBe(allowed);
  });

  it('lists the geo rules open to each country', () => {
    expect(geoRulesFor('CA')).toEqual(['us_pr_ca', 'global_beta']);
    expect(geoRulesFor('US')).toEqual(['us_pr', 'us_pr_ca', 'global_beta']);
    expect(geoRulesFor(null)).toEqual(['global_beta']);
  });

  it('makes a tester top-rated at an average of 4.5 (rounded) over three posters, each one voice', () => {
    const poster = (...stars: number[]) => ({
      sum: stars.reduce((a, b) => a + b, 0),
      count: stars.length,
    });
    expect(isTopRated([poster(5), poster(5), poster(4)])).toBe(true); // 4.67
    expect(isTopRated([poster(5, 5, 5, 5)])).toBe(false); // one poster, one voice
    expect(isTopRated([poster(5), poster(4), poster(5), poster(4)])).toBe(true); // 4.5
    expect(isTopRated([poster(5), poster(4), poster(4)])).toBe(false); // 4.33
  });

  describe('levels (New, Trusted, Top)', () => {
    const poster = (...stars: number[]) => ({
      sum: stars.reduce((a, b) => a + b, 0),
      count: stars.length,
    });
    const rec = (
      jobsCompleted: number,
      strikes: number,
      ...starsByPoster: Array<{ sum: number; count: number }>
    ) => ({ jobsCompleted, strikes, starsByPoster });

    it('starts a tester at New, saying how many accepted jobs Trusted needs', () => {
      expect(testerLevel(rec(0, 0))).toEqual({
        level: 'new',
        next: { level: 'trusted', needs: ['5 more accepted jobs (5 in all)'] },
      });
      expect(testerLevel(rec(4, 0)).next?.needs).toEqual(['1 more accepted job (5 in all)']);
    });

    it('makes Trusted at 5 accepted jobs with 80% of finished claims accepted', () => {
      expect(TRUSTED).toEqual({ minJobs: 5, minAcceptancePct: 80 });
      expect(testerLevel(rec(5, 0)).level).toBe('trusted');
      expect(testerLevel(rec(8, 2)).level).toBe('trusted'); // 80%
      expect(testerLevel(rec(5, 2))).toEqual({
        level: 'new',
        next: { level: 'trusted', needs: ['an acceptance rate of 80% or more (yours: 71%)'] },
      });
      expect(acceptanceRatePct(rec(0, 0))).toBeNull();
      expect(acceptanceRatePct(rec(2, 1))).toBe(67);
    });

    it('tells a Trusted tester what Top needs: posters and their average, each one voice', () => {
      expect(testerLevel(rec(6, 0, poster(5, 5, 5, 5)))).toEqual({
        level: 'trusted',
        next: { level: 'top', needs: ['ratings from 2 more posters (3 different posters in all)'] },
      });
      expect(testerLevel(rec(6, 0, poster(5), poster(4), poster(4))).next?.needs).toEqual([
        'an average of 4.5 stars or more, each poster counted once (yours: 4.3)',
      ]);
      expect(testerLevel(rec(6, 0)).next?.needs).toEqual([
        'ratings from 3 more posters (3 different posters in all)',
        'an average of 4.5 stars or more, each poster counted once',
      ]);
    });

    it('is Top exactly when the tester is top-rated, whatever else, and only Top has the priority window', () => {
      const cases = [
        rec(0, 0, poster(5), poster(5), poster(4)),
        rec(3, 5, poster(5), poster(4), poster(5), poster(4)),
        rec(20, 0, poster(5), poster(4), poster(4)),
        rec(20, 0, poster(5, 5, 5, 5)),
        rec(1, 0),
      ];
      for (const r of cases) {
        const { level, next } = testerLevel(r);
        expect(level === 'top').toBe(isTopRated(r.starsByPoster));
        expect(hasPriorityAccess(level)).toBe(isTopRated(r.starsByPoster));
        expect(next === null).toBe(level === 'top');
      }
      expect(hasPriorityAccess('trusted')).toBe(false);
      expect(hasPriorityAccess('new')).toBe(false);
    });
  });
});

describe('fresh eyes', () => {
  it('treats hosts case-insensitively and ignores a leading www.', () => {
    expect(siteHost('https://WWW.Bakery.Example/cakes?x=1')).toBe('bakery.example');
    expect(siteHost('http://shop.bakery.example:8080/')).toBe('shop.bakery.example');
    expect(siteHost('https://www2.bakery.example')).toBe('www2.bakery.example');
  });

  it('blocks a tester who tested the same poster site only when the job asks for fresh eyes', () => {
    const job = { freshEyes: true, posterId: 'p1', siteHost: 'bakery.example' };
    expect(freshEyesBlocks(job, [siteKey('p1', 'bakery.example')])).toBe(true);
    expect(
      freshEyesBlocks(job, [siteKey('p2', 'bakery.example'), siteKey('p1', 'pastry.example')]),
    ).toBe(false);
    expect(freshEyesBlocks({ ...job, freshEyes: false }, [siteKey('p1', 'bakery.example')])).toBe(
      false,
    );
  });
});
