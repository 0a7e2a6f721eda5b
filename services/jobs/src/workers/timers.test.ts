import { describe, expect, it } from '@jest/globals';
import { createEvent } from '@htm/events';
import { timerIds, timersOf, TIMERS } from './timers.js';

const jobId = '11111111-1111-4111-8111-111111111111';
const testerId = 'tester-1';
const submissionId = '22222222-2222-4222-8222-222222222222';
const deadlineAt = '2030-01-02T03:04:05.000Z';

describe('timersOf: the timers an event of jobs starts and ends (the transition table)', () => {
  it('starts the claim timeout of a claim, at its deadline', () => {
    const e = createEvent('JobClaimed', jobId, {
      jobId,
      testerId,
      claimedAt: '2030-01-01T00:00:00.000Z',
      deadlineAt,
      by: 'tester',
    });
    expect(timersOf(e)).toEqual({
      add: [
        {
          name: TIMERS.claimTimeout,
          data: { jobId, testerId, deadlineAt },
          jobId: timerIds.claimTimeout(jobId, deadlineAt),
          at: new Date(deadlineAt),
        },
      ],
      remove: [],
    });
  });

  it("starts a submission's auto-accept and ends the hold it finished: the claim's, or the revision window's", () => {
    const submitted = (revision: number) =>
      createEvent('WorkSubmitted', jobId, {
        jobId,
        testerId,
        submissionId,
        revision,
        submittedAt: '2030-01-01T00:00:00.000Z',
        autoAcceptAt: deadlineAt,
        heldUntil: '2030-01-01T01:00:00.000Z',
      });
    expect(timersOf(submitted(0))).toEqual({
      add: [expect.objectContaining({ jobId: timerIds.autoAccept(jobId, submissionId) })],
      remove: [timerIds.claimTimeout(jobId, '2030-01-01T01:00:00.000Z')],
    });
    expect(timersOf(submitted(1)).remove).toEqual([
      timerIds.revisionWindow(jobId, '2030-01-01T01:00:00.000Z'),
    ]);
  });

  it("ends the accepted submission's auto-accept; a release starts and ends nothing", () => {
    const accepted = createEvent('SubmissionAccepted', jobId, {
      jobId,
      testerId,
      posterId: 'poster-1',
      title: 'Site',
      acceptedBy: 'poster',
      acceptedAt: '2030-01-01T00:00:00.000Z',
      submissionId,
    });
    expect(timersOf(accepted)).toEqual({
      add: [],
      remove: [timerIds.autoAccept(jobId, submissionId)],
    });
    const released = createEvent('JobReleased', jobId, {
      jobId,
      testerId,
      reason: 'claim_timeout',
    });
    expect(timersOf(released)).toEqual({ add: [], remove: [] });
  });

  it("starts a pack slot's fill timer when it is published, and none for a lone job", () => {
    const published = (fillDeadlineAt?: string) =>
      createEvent('JobPublished', jobId, {
        jobId,
        posterId: 'poster-1',
        geoRule: 'us_pr',
        paidAt: '2030-01-01T00:00:00.000Z',
        ...(fillDeadlineAt ? { fillDeadlineAt } : {}),
      });
    expect(timersOf(published(deadlineAt)).add).toEqual([
      {
        name: TIMERS.packFill,
        data: { jobId },
        jobId: timerIds.packFill(jobId),
        at: new Date(deadlineAt),
      },
    ]);
    expect(timersOf(published())).toEqual({ add: [], remove: [] });
  });
});
