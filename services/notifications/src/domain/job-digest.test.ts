import { describe, expect, it } from '@jest/globals';
import {
  digestDue,
  digestFor,
  testerMayTake,
  type DigestJob,
  type DigestTester,
} from './job-digest.js';

const now = new Date('2026-11-26T12:00:00Z');
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const tester = (over: Partial<DigestTester> = {}): DigestTester => ({
  id: 't1',
  approved: true,
  country: 'US',
  assistiveTech: [],
  testedSites: [],
  announced: [],
  lastDigestAt: null,
  ...over,
});
const job = (over: Partial<DigestJob> = {}): DigestJob => ({
  id: 'j1',
  posterId: 'p1',
  title: 'A job',
  url: 'https://shop.example',
  expectedCompletionHours: 48,
  geoRule: 'us_pr',
  status: 'open',
  paidAt: minutesAgo(30),
  assistiveTech: null,
  freshEyes: false,
  siteHost: 'shop.example',
  reservedTesterId: null,
  reservedUntil: null,
  ...over,
});
const WINDOW = 10 * 60_000;

describe('which jobs a digest may announce to a tester', () => {
  it('follows geo, assistive tech, fresh eyes, re-test reservations, state and approval', () => {
    expect(testerMayTake(tester(), job(), now, WINDOW)).toBe(true);
    expect(testerMayTake(tester({ country: 'CA' }), job(), now, WINDOW)).toBe(false);
    expect(
      testerMayTake(tester({ country: 'CA' }), job({ geoRule: 'us_pr_ca' }), now, WINDOW),
    ).toBe(true);
    expect(
      testerMayTake(tester({ country: null }), job({ geoRule: 'global_beta' }), now, WINDOW),
    ).toBe(false);
    expect(testerMayTake(tester({ approved: false }), job(), now, WINDOW)).toBe(false);
    expect(testerMayTake(tester(), job({ assistiveTech: 'screen_reader' }), now, WINDOW)).toBe(
      false,
    );
    expect(
      testerMayTake(
        tester({ assistiveTech: ['screen_reader'] }),
        job({ assistiveTech: 'screen_reader' }),
        now,
        WINDOW,
      ),
    ).toBe(true);
    expect(
      testerMayTake(
        tester({ testedSites: ['p1|shop.example'] }),
        job({ freshEyes: true }),
        now,
        WINDOW,
      ),
    ).toBe(false);
    expect(
      testerMayTake(
        tester({ testedSites: ['p1|shop.example'] }),
        job({ freshEyes: false }),
        now,
        WINDOW,
      ),
    ).toBe(true);
    expect(
      testerMayTake(
        tester(),
        job({ reservedTesterId: 'other', reservedUntil: minutesAgo(-60) }),
        now,
        WINDOW,
      ),
    ).toBe(false);
    expect(
      testerMayTake(
        tester(),
        job({ reservedTesterId: 't1', reservedUntil: minutesAgo(-60) }),
        now,
        WINDOW,
      ),
    ).toBe(true);
    expect(
      testerMayTake(
        tester(),
        job({ reservedTesterId: 'other', reservedUntil: minutesAgo(1) }),
        now,
        WINDOW,
      ),
    ).toBe(true);
    expect(testerMayTake(tester(), job({ status: 'taken' }), now, WINDOW)).toBe(false);
    expect(testerMayTake(tester(), job({ status: 'unpaid', paidAt: null }), now, WINDOW)).toBe(
      false,
    );
  });

  it('announces a job only once its priority window is over (0 = no window)', () => {
    expect(testerMayTake(tester(), job({ paidAt: minutesAgo(5) }), now, WINDOW)).toBe(false);
    expect(testerMayTake(tester(), job({ paidAt: minutesAgo(11) }), now, WINDOW)).toBe(true);
    expect(testerMayTake(tester(), job({ paidAt: minutesAgo(1) }), now, 0)).toBe(true);
  });

  it('lists only new jobs not announced before, oldest first, and is due at most once an hour', () => {
    const jobs = [
      job({ id: 'b', paidAt: minutesAgo(20) }),
      job({ id: 'a', paidAt: minutesAgo(40) }),
      job({ id: 'old', paidAt: minutesAgo(25 * 60) }),
    ];
    expect(digestFor(tester(), jobs, now, WINDOW).map((j) => j.id)).toEqual(['a', 'b']);
    expect(digestFor(tester({ announced: ['a'] }), jobs, now, WINDOW).map((j) => j.id)).toEqual([
      'b',
    ]);
    expect(digestDue(null, now)).toBe(true);
    expect(digestDue(minutesAgo(59), now)).toBe(false);
    expect(digestDue(minutesAgo(60), now)).toBe(true);
  });
});
