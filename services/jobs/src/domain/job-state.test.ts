import { describe, expect, it } from '@jest/globals';
import { refusal } from '@htm/service-kit/testing';
import { TRANSITIONS } from '@htm/contracts/marketplace';
import {
  addMs,
  claimDeadline,
  decide,
  geoAllows,
  geoRulesFor,
  MAX_REVISIONS,
  normalizeStatus,
  reservedFor,
  timerDueAt,
  type JobAction,
} from './job-state.js';

const job = (status: string, paymentStatus = 'paid', revisionCount = 0) => ({
  status,
  paymentStatus,
  revisionCount,
});

describe('job state machine: allowed transitions', () => {
  const allowed: Array<[string, JobAction, string, number?]> = [
    ['open', 'claim', 'claimed'],
    ['open', 'assign', 'claimed'],
    ['in_progress', 'submit', 'submitted'],
    ['claimed', 'submit', 'submitted'],
    ['revision_requested', 'submit', 'submitted'],
    ['submitted', 'accept', 'completed'],
    ['submitted', 'auto_accept', 'completed'],
    ['submitted', 'accept', 'completed', 1],
    ['submitted', 'request_revision', 'revision_requested'],
    ['claimed', 'claim_timeout', 'open'],
    ['revision_requested', 'revision_expired', 'open'],
  ];
  it.each(allowed)('%s --%s--> %s', (from, action, to, revisions = 0) => {
    expect(decide(job(from, 'paid', revisions), action)).toBe(to);
  });

  it('lets an unpaid open job be sent to checkout', () => {
    expect(decide(job('open', 'unpaid'), 'checkout')).toBe('open');
  });
});

describe('job state machine: refused transitions are 409 with a sentence', () => {
  const refused: Array<[string, string, JobAction, string, number?]> = [
    ['open', 'unpaid', 'claim', 'job_not_paid'],
    ['open', 'unpaid', 'assign', 'job_not_paid'],
    ['open', 'paid', 'checkout', 'already_paid'],
    ['claimed', 'paid', 'checkout', 'already_paid'],
    ['claimed', 'paid', 'claim', 'job_taken'],
    ['in_progress', 'paid', 'claim', 'job_taken'],
    ['submitted', 'paid', 'claim', 'job_taken'],
    ['revision_requested', 'paid', 'assign', 'job_taken'],
    ['completed', 'paid', 'claim', 'job_completed'],
    ['open', 'paid', 'submit', 'job_not_claimed'],
    ['submitted', 'paid', 'submit', 'already_submitted'],
    ['completed', 'paid', 'submit', 'job_completed'],
    ['open', 'paid', 'accept', 'nothing_to_review'],
    ['claimed', 'paid', 'accept', 'nothing_to_review'],
    ['revision_requested', 'paid', 'accept', 'revision_pending'],
    ['completed', 'paid', 'accept', 'job_completed'],
    ['claimed', 'paid', 'auto_accept', 'nothing_to_review'],
    ['completed', 'paid', 'auto_accept', 'job_completed'],
    ['claimed', 'paid', 'request_revision', 'nothing_to_review'],
    ['revision_requested', 'paid', 'request_revision', 'revision_pending'],
    ['submitted', 'paid', 'request_revision', 'revision_limit', 1],
    ['completed', 'paid', 'request_revision', 'job_completed'],
    ['open', 'paid', 'claim_timeout', 'stale_timer'],
    ['submitted', 'paid', 'claim_timeout', 'stale_timer'],
    ['submitted', 'paid', 'revision_expired', 'stale_timer'],
    ['open', 'paid', 'revision_expired', 'stale_timer'],
    ['completed', 'paid', 'claim_timeout', 'job_completed'],
  ];
  it.each(refused)('%s (%s) refuses %s with %s', (status, pay, action, code, revisions = 0) => {
    const err = refusal(() => decide(job(status, pay, revisions), action));
    expect(err.status).toBe(409);
    expect(err.code).toBe(code);
    expect(err.detail).toMatch(/^[A-Z].+\.$/);
  });

  it('explains the revision limit', () => {
    expect(refusal(() => decide(job('submitted', 'paid', 1), 'request_revision')).detail).toBe(
      'Only one revision is allowed per job. Please accept the work.',
    );
  });

  it('rejects unknown statuses loudly', () => {
    expect(() => normalizeStatus('archived')).toThrow('unknown job status');
  });
});

describe('geo rules', () => {
  it.each([
    ['us_pr', 'US', true],
    ['us_pr', 'PR', true],
    ['us_pr', 'CA', false],
    ['us_pr', null, false],
    ['us_pr_ca', 'CA', true],
    ['us_pr_ca', 'PR', true],
    ['global_beta', 'CA', true],
    ['global_beta', null, true],
  ] as const)('%s for %s -> %s', (rule, country, ok) => {
    expect(geoAllows(rule, country)).toBe(ok);
  });
  it('lists the rules a country may take', () => {
    expect(geoRulesFor('US')).toEqual(['us_pr', 'us_pr_ca', 'global_beta']);
    expect(geoRulesFor('CA')).toEqual(['us_pr_ca', 'global_beta']);
    expect(geoRulesFor(null)).toEqual(['global_beta']);
  });
});

describe('claim deadline', () => {
  const at = new Date('2026-01-01T00:00:00.000Z');
  it('uses the job expected completion hours by default', () => {
    expect(claimDeadline(at, 48).toISOString()).toBe('2026-01-03T00:00:00.000Z');
  });
  it('uses CLAIM_TIMEOUT_MS when set', () => {
    expect(claimDeadline(at, 48, 300).toISOString()).toBe('2026-01-01T00:00:00.300Z');
  });
});

describe('other deadlines', () => {
  const at = new Date('2026-01-01T00:00:00.000Z');
  it('puts the auto-accept and the revision window deadlines AUTO_ACCEPT_AFTER_MS / REVISION_WINDOW_MS after the event', () => {
    expect(addMs(at, 96 * 3600_000).toISOString()).toBe('2026-01-05T00:00:00.000Z');
    expect(addMs(at, 48 * 3600_000).toISOString()).toBe('2026-01-03T00:00:00.000Z');
  });
});

describe('revision limit', () => {
  it('allows MAX_REVISIONS (one) revision, then only accepting', () => {
    expect(MAX_REVISIONS).toBe(1);
    expect(decide(job('submitted', 'paid', MAX_REVISIONS - 1), 'request_revision')).toBe(
      'revision_requested',
    );
    expect(
      refusal(() => decide(job('submitted', 'paid', MAX_REVISIONS), 'request_revision')).code,
    ).toBe('revision_limit');
    expect(decide(job('submitted', 'paid', MAX_REVISIONS), 'accept')).toBe('completed');
    expect(decide(job('revision_requested', 'paid', MAX_REVISIONS), 'submit')).toBe('submitted');
  });
});

describe('re-test hold', () => {
  const now = new Date('2026-01-01T12:00:00.000Z');
  it('holds a re-test for its original tester until reserved_until, then for nobody', () => {
    expect(
      reservedFor({ reservedTesterId: 't1', reservedUntil: new Date(now.getTime() + 1) }, now),
    ).toBe('t1');
    expect(reservedFor({ reservedTesterId: 't1', reservedUntil: now }, now)).toBeNull();
    expect(reservedFor({ reservedTesterId: 't1', reservedUntil: null }, now)).toBeNull();
    expect(
      reservedFor({ reservedTesterId: null, reservedUntil: new Date(now.getTime() + 1) }, now),
    ).toBeNull();
  });
});

describe('the transition table: every effect of a change', () => {
  it('gives the rows that record the same event the same webhook and timers (effects follow from the event)', () => {
    const byEvent = new Map<string, Array<(typeof TRANSITIONS)[keyof typeof TRANSITIONS]>>();
    for (const t of Object.values(TRANSITIONS))
      byEvent.set(t.event, [...(byEvent.get(t.event) ?? []), t]);
    for (const rows of byEvent.values())
      for (const t of rows) {
        expect(t.webhook).toEqual(rows[0].webhook);
        expect(t.timers).toEqual(rows[0].timers);
      }
    expect(TRANSITIONS.submit).toMatchObject({
      event: 'WorkSubmitted',
      webhook: 'job.submitted',
      timers: { starts: 'auto_accept', ends: ['claim_timeout', 'revision_window'] },
    });
  });
});

describe('timerDueAt (when the database says a timer is due)', () => {
  const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
  const job = {
    status: 'submitted',
    testerId: 't1',
    currentSubmissionId: 's1',
    claimDeadlineAt: null,
    revisionDeadlineAt: null,
    autoAcceptAt: at(96),
    fillDeadlineAt: null,
    packId: null,
  };

  it("answers the job's own deadline for the timer it still waits for", () => {
    expect(timerDueAt(job, 'auto_accept', { jobId: 'j', submissionId: 's1' })).toEqual(at(96));
    expect(
      timerDueAt(
        { ...job, status: 'claimed', claimDeadlineAt: at(48), autoAcceptAt: null },
        'claim_timeout',
        { jobId: 'j', testerId: 't1', deadlineAt: at(48) },
      ),
    ).toEqual(at(48));
    expect(
      timerDueAt(
        { ...job, status: 'revision_requested', revisionDeadlineAt: at(50), autoAcceptAt: null },
        'revision_expired',
        { jobId: 'j', testerId: 't1', deadlineAt: at(50) },
      ),
    ).toEqual(at(50));
    expect(
      timerDueAt(
        { ...job, status: 'open', testerId: null, packId: 'p', fillDeadlineAt: at(168) },
        'close_unfilled',
        { jobId: 'j' },
      ),
    ).toEqual(at(168));
  });

  it('answers null when the job no longer waits for that timer', () => {
    expect(timerDueAt(null, 'auto_accept', { jobId: 'j', submissionId: 's1' })).toBeNull();
    expect(timerDueAt(job, 'auto_accept', { jobId: 'j', submissionId: 'older' })).toBeNull();
    expect(
      timerDueAt({ ...job, status: 'completed' }, 'auto_accept', {
        jobId: 'j',
        submissionId: 's1',
      }),
    ).toBeNull();
    const claimed = { ...job, status: 'claimed', claimDeadlineAt: at(48), autoAcceptAt: null };
    expect(
      timerDueAt(claimed, 'claim_timeout', { jobId: 'j', testerId: 't2', deadlineAt: at(48) }),
    ).toBeNull();
    expect(
      timerDueAt(claimed, 'claim_timeout', { jobId: 'j', testerId: 't1', deadlineAt: at(47) }),
    ).toBeNull();
    expect(
      timerDueAt({ ...job, status: 'open', fillDeadlineAt: at(168) }, 'close_unfilled', {
        jobId: 'j',
      }),
    ).toBeNull();
    // Not a timer's action at all.
    expect(timerDueAt(job, 'accept', { jobId: 'j' })).toBeNull();
  });
});
