import { describe, expect, it } from '@jest/globals';
import { LIVE_NOTICES, liveEffect, reconnectDelay } from './live';

const poster = { type: 'poster' as const };
const tester = { type: 'tester' as const };

describe('live messages in the web app', () => {
  it('refetches the job lists and tells the poster when their job was claimed, submitted or auto-accepted', () => {
    const claimed = liveEffect(
      'job',
      { job_id: 'j1', status: 'claimed', payment_status: 'paid', event: 'JobClaimed' },
      poster,
    );
    expect(claimed.tags).toEqual(
      expect.arrayContaining(['Job', 'AdminJob', 'MyJob', { type: 'Submission', id: 'j1' }]),
    );
    expect(claimed.notice).toBe('Your job was claimed');
    expect(
      liveEffect('job', { job_id: 'j1', status: 'submitted', event: 'WorkSubmitted' }, poster)
        .notice,
    ).toBe(LIVE_NOTICES.WorkSubmitted);
    expect(
      liveEffect(
        'job',
        { job_id: 'j1', status: 'completed', event: 'SubmissionAccepted', accepted_by: 'auto' },
        poster,
      ).notice,
    ).toBe('Auto-accepted after 96 hours');
    expect(
      liveEffect(
        'job',
        { job_id: 'j1', status: 'completed', event: 'SubmissionAccepted', accepted_by: 'poster' },
        poster,
      ).notice,
    ).toBeUndefined();
    // The tester who claimed does not get the poster's notice.
    expect(
      liveEffect('job', { job_id: 'j1', status: 'claimed', event: 'JobClaimed' }, tester).notice,
    ).toBeUndefined();
  });

  it('refetches available jobs, earnings, or everything on a resync', () => {
    expect(liveEffect('available', { job_id: 'j1', action: 'added' }, tester).tags).toEqual([
      'AvailableJob',
    ]);
    expect(liveEffect('earnings', { action: 'paid' }, tester).tags).toContain('Earnings');
    expect(liveEffect('resync', {}, tester).tags).toEqual(
      expect.arrayContaining(['Job', 'AvailableJob', 'Earnings', 'MyJob']),
    );
    expect(liveEffect('something-else', {}, tester).tags).toEqual([]);
    expect(liveEffect('admin', { list: 'testers' }, { type: 'admin' }).tags).toEqual(['Tester']);
    expect(liveEffect('admin', { list: 'waitlist' }, { type: 'admin' }).tags).toEqual(['Waitlist']);
    expect(liveEffect('admin', { list: 'feedback' }, { type: 'admin' }).tags).toEqual([]);
    // Appeals (#34): the tester hears the decision and reads their standing again; admins refetch the queue.
    expect(liveEffect('appeal', { appeal_id: 'a1', decision: 'overturn' }, tester)).toEqual({
      tags: ['Appeal', 'Me'],
      notice: 'Your appeal was accepted',
    });
    expect(liveEffect('appeal', { appeal_id: 'a1', decision: null }, { type: 'admin' })).toEqual({
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
