import { describe, expect, it } from '@jest/globals';
import { liveJobMessageSchema } from '@htm/contracts/live';
import { jobViewFixture } from '@htm/contracts/testing';
import { createEvent, type EventData } from '@htm/events';
import { testersAdmittedBy, toLiveMessages } from './live-messages.js';

const JOB = '3f2a9c1e-0000-4000-8000-000000000001';
const POSTER = 'poster-1';
const TESTER = 'tester-1';
const at = new Date().toISOString();
/** A WorkSubmitted event of JOB by TESTER (`extra`: the poster, the check, the job view). */
const submitted = (extra: Partial<EventData<'WorkSubmitted'>> = {}) =>
  createEvent('WorkSubmitted', JOB, {
    jobId: JOB,
    testerId: TESTER,
    submissionId: 's1',
    revision: 0,
    submittedAt: at,
    autoAcceptAt: at,
    ...extra,
  });

describe('live messages from events', () => {
  it('admits the testers of each geo rule', () => {
    expect(testersAdmittedBy('us_pr')).toEqual(['US', 'PR']);
    expect(testersAdmittedBy('us_pr_ca')).toEqual(['US', 'PR', 'CA']);
    expect(testersAdmittedBy('global_beta')).toBe('any');
  });

  it("tells the poster, the tester and admins of a claim, and removes the job for the geo rule's testers", () => {
    const msgs = toLiveMessages(
      createEvent('JobClaimed', JOB, {
        jobId: JOB,
        testerId: TESTER,
        claimedAt: at,
        deadlineAt: at,
        by: 'tester',
        posterId: POSTER,
        geoRule: 'us_pr',
      }),
    );
    expect(msgs).toEqual([
      {
        event: 'job',
        data: { job_id: JOB, status: 'claimed', payment_status: 'paid', event: 'JobClaimed' },
        to: { users: [POSTER, TESTER], admins: true },
      },
      {
        event: 'available',
        data: { job_id: JOB, action: 'removed' },
        to: { users: [], testers: ['US', 'PR'] },
      },
    ]);
  });

  it('offers a released job again and tells the tester it was taken from', () => {
    const [job, available] = toLiveMessages(
      createEvent('JobReleased', JOB, {
        jobId: JOB,
        testerId: TESTER,
        reason: 'claim_timeout',
        posterId: POSTER,
        geoRule: 'us_pr_ca',
      }),
    );
    expect(job).toMatchObject({
      data: { status: 'open', event: 'JobReleased' },
      to: { users: [POSTER, TESTER] },
    });
    expect(available).toEqual({
      event: 'available',
      data: { job_id: JOB, action: 'added' },
      to: { users: [], testers: ['US', 'PR', 'CA'] },
    });
  });

  it('still tells the tester and admins about an older event without the poster', () => {
    const [job] = toLiveMessages(submitted());
    expect(job.to).toEqual({ users: [TESTER], admins: true });
  });

  it("tells the poster of a report only once its session check delivered it, and offers a failed one's job again", () => {
    const [held] = toLiveMessages(submitted({ posterId: POSTER, awaitsCheck: true }));
    expect(held.to).toEqual({ users: [TESTER], admins: true });
    const checked = (delivered: boolean, verdict: 'pass' | 'fail') =>
      toLiveMessages(
        createEvent('SessionChecked', JOB, {
          submissionId: 's1',
          jobId: JOB,
          testerId: TESTER,
          posterId: POSTER,
          verdict,
          reasons: verdict === 'fail' ? ['copied_text'] : [],
          metrics: {
            recordingMs: null,
            talkPct: null,
            longestIdleMs: null,
            itemsTotal: 1,
            itemsCovered: 1,
            maxContainment: 0.9,
          },
          checkedAt: at,
          delivered,
        }),
      );
    expect(checked(true, 'pass')).toEqual([
      {
        event: 'job',
        data: { job_id: JOB, event: 'SessionChecked', verdict: 'pass', delivered: true },
        to: { users: [POSTER, TESTER], admins: true },
      },
    ]);
    expect(checked(false, 'fail')[0].to).toEqual({ users: [TESTER], admins: true });
    // The shape the web app parses (no status: a check changes none).
    expect(liveJobMessageSchema.safeParse(checked(true, 'pass')[0]!.data).success).toBe(true);
    const [job, available] = toLiveMessages(
      createEvent('ReplacementRequested', JOB, {
        jobId: JOB,
        submissionId: 's1',
        testerId: TESTER,
        posterId: POSTER,
        requestedBy: 'check',
        reasons: ['copied_text'],
        requestedAt: at,
      }),
    );
    expect(job).toMatchObject({ data: { status: 'open' }, to: { users: [POSTER, TESTER] } });
    expect(available).toMatchObject({ data: { job_id: JOB, action: 'added' }, to: { users: [] } });
  });

  it('carries the job as the event has it just after the change, in the shape the web app parses', () => {
    const view = jobViewFixture({
      id: JOB,
      status: 'submitted',
      poster_id: POSTER,
      tester_id: TESTER,
      submitted_at: at,
      auto_accept_at: at,
    });
    const [msg] = toLiveMessages(submitted({ posterId: POSTER, job: view }));
    const parsed = liveJobMessageSchema.parse(msg!.data);
    expect(parsed).toMatchObject({ job_id: JOB, status: 'submitted', event: 'WorkSubmitted' });
    expect(parsed.job).toEqual(view);
  });

  it('says how a job was accepted, and sends earnings only once the ledger has them', () => {
    const accepted = toLiveMessages(
      createEvent('SubmissionAccepted', JOB, {
        jobId: JOB,
        testerId: TESTER,
        posterId: POSTER,
        title: 't',
        acceptedBy: 'auto',
        acceptedAt: at,
      }),
    );
    expect(accepted).toEqual([
      expect.objectContaining({
        event: 'job',
        data: expect.objectContaining({ status: 'completed', accepted_by: 'auto' }),
      }),
    ]);
    expect(
      toLiveMessages(
        createEvent('EarningRecorded', JOB, {
          jobId: JOB,
          testerId: TESTER,
          amountCents: 82,
          acceptedBy: 'auto',
        }),
      ),
    ).toEqual([
      {
        event: 'earnings',
        data: { job_id: JOB, action: 'earned', amount_cents: 82 },
        to: { users: [TESTER] },
      },
    ]);
  });

  it("tells admins of a new appeal and the tester of the admin's decision", () => {
    const filed = toLiveMessages(
      createEvent('AppealFiled', 'a1', {
        appealId: 'a1',
        testerId: TESTER,
        jobId: JOB,
        kind: 'strike',
        message: 'The site was down.',
        filedAt: at,
      }),
    );
    expect(filed).toEqual([
      {
        event: 'appeal',
        data: { appeal_id: 'a1', job_id: JOB, kind: 'strike', decision: null },
        to: { users: [], admins: true },
      },
    ]);
    const decided = toLiveMessages(
      createEvent('AppealDecided', TESTER, {
        appealId: 'a1',
        testerId: TESTER,
        jobId: JOB,
        kind: 'strike',
        decision: 'overturn',
        note: null,
        stars: null,
        decidedAt: at,
        actorId: 'admin-1',
      }),
    );
    expect(decided).toEqual([
      {
        event: 'appeal',
        data: { appeal_id: 'a1', job_id: JOB, kind: 'strike', decision: 'overturn' },
        to: { users: [TESTER], admins: true },
      },
    ]);
  });

  it("refreshes the admin's lists of testers, signups and leads, and ignores what nobody watches live", () => {
    expect(
      toLiveMessages(createEvent('LeadReceived', 'l1', { leadId: 'l1', email: 'a@b.c' })),
    ).toEqual([{ event: 'admin', data: { list: 'leads' }, to: { users: [], admins: true } }]);
    expect(
      toLiveMessages(
        createEvent('TesterApprovalChanged', 'u1', {
          userId: 'u1',
          email: 'a@b.c',
          name: 'A',
          approved: true,
          country: 'US',
          reason: 'admin',
        }),
      )[0].data,
    ).toEqual({ list: 'testers' });
    expect(
      toLiveMessages(createEvent('ClientTelemetry', 'u1', { userId: null, events: [] })),
    ).toEqual([]);
    expect(
      toLiveMessages(
        createEvent('UserSignedUp', 'u1', { userId: 'u1', email: 'a@b.c', name: 'A' }),
      ),
    ).toEqual([]);
  });
});
