import { describe, expect, it } from '@jest/globals';
import { refusal } from '@htm/service-kit/testing';
import { checkClaimEligibility, type ClaimableJob } from './claim-job.js';
import type { TesterStanding } from './job-state.js';
import { siteKey } from '@htm/contracts/marketplace';

const now = new Date('2026-03-01T12:00:00.000Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);

const job = (over: Partial<ClaimableJob> = {}): ClaimableJob => ({
  status: 'open',
  paymentStatus: 'paid',
  revisionCount: 0,
  geoRule: 'us_pr',
  assistiveTech: null,
  freshEyes: false,
  posterId: 'poster-1',
  siteHost: 'bakery.example',
  paidAt: minutesAgo(60),
  reservedTesterId: null,
  reservedUntil: null,
  ...over,
});

const tester = (over: Partial<TesterStanding> = {}): TesterStanding => ({
  id: 'tester-1',
  approved: true,
  country: 'US',
  assistiveTech: [],
  testedSites: [],
  topRated: false,
  windowRules: [],
  ...over,
});

const WINDOW = 600_000;

const refused = (
  j: ClaimableJob,
  t: TesterStanding,
  by: 'tester' | 'admin' = 'tester',
  windowMs = WINDOW,
) => {
  const err = refusal(() => checkClaimEligibility(j, t, by, windowMs, now));
  return { status: err.status, code: err.code };
};

describe('claim eligibility (pure)', () => {
  it('lets an approved tester of the right country take an open paid job', () => {
    expect(() => checkClaimEligibility(job(), tester(), 'tester', WINDOW, now)).not.toThrow();
    expect(() => checkClaimEligibility(job(), tester(), 'admin', WINDOW, now)).not.toThrow();
  });

  it('refuses by job state first: unpaid, taken, completed (409)', () => {
    expect(refused(job({ paymentStatus: 'unpaid' }), tester())).toEqual({
      status: 409,
      code: 'job_not_paid',
    });
    expect(refused(job({ status: 'claimed' }), tester())).toEqual({
      status: 409,
      code: 'job_taken',
    });
    expect(refused(job({ status: 'completed' }), tester(), 'admin')).toEqual({
      status: 409,
      code: 'job_completed',
    });
    // The state is decided before the tester's fit: a taken job is job_taken even for the wrong country.
    expect(refused(job({ status: 'claimed' }), tester({ country: 'CA' }))).toEqual({
      status: 409,
      code: 'job_taken',
    });
  });

  it('refuses the wrong country: 403 for a tester, 409 for the admin', () => {
    expect(refused(job({ geoRule: 'us_pr' }), tester({ country: 'CA' }))).toEqual({
      status: 403,
      code: 'geo_not_allowed',
    });
    expect(refused(job({ geoRule: 'us_pr' }), tester({ country: 'CA' }), 'admin')).toEqual({
      status: 409,
      code: 'geo_not_allowed',
    });
    expect(() =>
      checkClaimEligibility(
        job({ geoRule: 'us_pr_ca' }),
        tester({ country: 'CA' }),
        'tester',
        WINDOW,
        now,
      ),
    ).not.toThrow();
  });

  it('asks for the assistive technology the job names', () => {
    const screenReaderJob = job({ assistiveTech: 'screen_reader' });
    expect(refused(screenReaderJob, tester())).toEqual({
      status: 403,
      code: 'assistive_tech_required',
    });
    expect(refused(screenReaderJob, tester(), 'admin')).toEqual({
      status: 409,
      code: 'assistive_tech_required',
    });
    expect(() =>
      checkClaimEligibility(
        screenReaderJob,
        tester({ assistiveTech: ['screen_reader'] }),
        'tester',
        WINDOW,
        now,
      ),
    ).not.toThrow();
  });

  it('keeps a fresh-eyes job from a tester who tested the same poster site', () => {
    const seen = tester({ testedSites: [siteKey('poster-1', 'bakery.example')] });
    expect(refused(job({ freshEyes: true }), seen)).toEqual({
      status: 403,
      code: 'already_tested_site',
    });
    expect(refused(job({ freshEyes: true }), seen, 'admin')).toEqual({
      status: 409,
      code: 'already_tested_site',
    });
    expect(() =>
      checkClaimEligibility(job({ freshEyes: false }), seen, 'tester', WINDOW, now),
    ).not.toThrow();
  });

  it('holds a job in its priority window from testers who are not top-rated, never from the admin', () => {
    const fresh = job({ paidAt: minutesAgo(5) });
    const others = tester({ windowRules: ['us_pr'] });
    expect(refused(fresh, others)).toEqual({ status: 403, code: 'priority_window' });
    expect(() =>
      checkClaimEligibility(fresh, { ...others, topRated: true }, 'tester', WINDOW, now),
    ).not.toThrow();
    expect(() => checkClaimEligibility(fresh, others, 'tester', 0, now)).not.toThrow();
    expect(() =>
      checkClaimEligibility(job({ paidAt: minutesAgo(11) }), others, 'tester', WINDOW, now),
    ).not.toThrow();
    // assignJob passes the admin's choice with no window rules.
    expect(() =>
      checkClaimEligibility(fresh, tester({ topRated: true }), 'admin', WINDOW, now),
    ).not.toThrow();
  });

  it('holds a paid re-test for its original tester until reserved_until, and the window does not apply to them', () => {
    const held = job({
      reservedTesterId: 'original',
      reservedUntil: new Date(now.getTime() + 60_000),
      paidAt: minutesAgo(1),
    });
    expect(refused(held, tester())).toEqual({ status: 403, code: 'reserved_for_original_tester' });
    expect(() =>
      checkClaimEligibility(
        held,
        tester({ id: 'original', windowRules: ['us_pr'] }),
        'tester',
        WINDOW,
        now,
      ),
    ).not.toThrow();
    // The admin may assign it to anyone.
    expect(() =>
      checkClaimEligibility(held, tester({ topRated: true }), 'admin', WINDOW, now),
    ).not.toThrow();
    // Once reserved_until has passed it is an ordinary job.
    const over = { ...held, reservedUntil: new Date(now.getTime() - 1), paidAt: minutesAgo(60) };
    expect(() => checkClaimEligibility(over, tester(), 'tester', WINDOW, now)).not.toThrow();
  });
});
