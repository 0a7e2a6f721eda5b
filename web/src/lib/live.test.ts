import { describe, expect, it } from '@jest/globals';
import { jobView } from '../test/job-view';
import { LIVE_NOTICES, liveEffect, reconnectDelay } from './live';

const poster = { type: 'poster' as const };
const tester = { type: 'tester' as const };

describe('live messages in the web app', () => {
  const claimed = jobView({ id: 'j1', status: 'claimed' });
  const message = (over: Record<string, unknown> = {}) => ({
    job_id: 'j1',
    status: 'claimed',
    payment_status: 'paid',
    event: 'JobClaimed',
    job: claimed,
    ...over,
  });

  it('carries the job a message names into the cached lists, and tells the poster when their job was claimed, submitted or auto-accepted', () => {
    const effect = liveEffect('job', message(), poster);
    expect(effect.job).toEqual(claimed);
    expect(effect.tags).toEqual(
      expect.arrayContaining([{ type: 'Submission', id: 'j1' }, 'Overview']),
    );
    expect(effect.notice).toBe('Your job was claimed');
    expect(
      liveEffect('job', message({ status: 'submitted', event: 'WorkSubmitted' }), poster).notice,
    ).toBe(LIVE_NOTICES.WorkSubmitted);
    const auto = message({ status: 'completed', event: 'SubmissionAccepted', accepted_by: 'auto' });
    expect(liveEffect('job', auto, poster).notice).toBe('Auto-accepted after 96 hours');
    expect(liveEffect('job', { ...auto, accepted_by: 'poster' }, poster).notice).toBeUndefined();
    // The tester who claimed does not get the poster's notice; an acceptance moves their record.
    expect(liveEffect('job', message(), tester).notice).toBeUndefined();
    expect(liveEffect('job', message(), tester).tags).not.toContain('Standing');
    expect(liveEffect('job', auto, tester).tags).toContain('Standing');
  });

  it('reads again what holds a job when the message does not carry it (a payment), and ignores a message that does not parse', () => {
    const paid = liveEffect(
      'job',
      { job_id: 'j1', status: 'open', payment_status: 'paid', event: 'JobPaid' },
      poster,
    );
    expect(paid).toMatchObject({ stale: 'j1' });
    expect(paid.job).toBeUndefined();
    expect(liveEffect('job', message({ job_id: undefined }), poster)).toEqual({ tags: [] });
    expect(liveEffect('job', message({ job: { id: 'j1' } }), poster)).toEqual({ tags: [] });
    expect(liveEffect('available', { job_id: 'j1', action: 'gone' }, tester)).toEqual({
      tags: [],
    });
  });

  it("reads the poster's list again when a session check delivers a report; the tester reads their checks", () => {
    const checked = { job_id: 'j1', event: 'SessionChecked', verdict: 'pass', delivered: true };
    expect(liveEffect('job', checked, poster)).toMatchObject({
      stale: 'j1',
      notice: LIVE_NOTICES.WorkSubmitted,
    });
    const mine = liveEffect('job', { ...checked, delivered: false, verdict: 'fail' }, tester);
    expect(mine.stale).toBeUndefined();
    expect(mine.tags).toContain('Standing');
  });

  it('takes a claimed job out of Available Jobs, reads the list again for a new one, refetches earnings, or everything on a resync', () => {
    expect(liveEffect('available', { job_id: 'j1', action: 'removed' }, tester)).toEqual({
      tags: [],
      unavailable: 'j1',
    });
    expect(liveEffect('available', { job_id: 'j1', action: 'added' }, tester).tags).toEqual([
      'AvailableJob',
    ]);
    expect(liveEffect('earnings', { action: 'paid', amount_cents: 500 }, tester).tags).toContain(
      'Earnings',
    );
    expect(liveEffect('resync', {}, tester).tags).toEqual(
      expect.arrayContaining(['Job', 'AvailableJob', 'Earnings', 'MyJob', 'Standing']),
    );
    expect(liveEffect('something-else', {}, tester).tags).toEqual([]);
    expect(liveEffect('admin', { list: 'testers' }, { type: 'admin' }).tags).toEqual(['Tester']);
    expect(liveEffect('admin', { list: 'waitlist' }, { type: 'admin' }).tags).toEqual(['Waitlist']);
    expect(liveEffect('admin', { list: 'feedback' }, { type: 'admin' }).tags).toEqual([]);
    // Appeals (#34): the tester hears the decision and reads their standing again; admins refetch the queue.
    const appeal = { appeal_id: 'a1', job_id: 'j1', kind: 'strike' };
    expect(liveEffect('appeal', { ...appeal, decision: 'overturn' }, tester)).toEqual({
      tags: ['Appeal', 'Me', 'Standing'],
      notice: 'Your appeal was accepted',
    });
    expect(liveEffect('appeal', { ...appeal, decision: null }, { type: 'admin' })).toEqual({
      tags: ['Appeal'],
    });
  });

  it('backs off from about a second to at most 30 seconds', () => {
    expect(reconnectDelay(0)).toBeGreaterThanOrEqual(500);
    expect(reconnectDelay(0)).toBeLessThanOrEqual(1000);
    expect(reconnectDelay(10)).toBeLessThanOrEqual(30_000);
    expect(reconnectDelay(10)).toBeGreaterThanOrEqual(15_000);
  });
});
