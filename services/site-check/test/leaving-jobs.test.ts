import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EventEnvelope } from '@htm/events';
import { ev, startHarness, waitFor, type Harness } from './support.js';

/**
 * Jobs that leave the marketplace take their health check with them: a deleted account's unpaid
 * jobs (UserDeleted), its paid jobs nobody started (JobsWithdrawn), every job at the admin's
 * clear-all (JobsCleared). The jobs a tester worked on stay, with no one's id on them. No browser
 * here (every check ends `unavailable` at once): the rows are what is looked at.
 */
describe('jobs that leave', () => {
  let h: Harness;
  const poster = randomUUID();
  const tester = randomUUID();
  const [unpaid, kept, packmate, alone] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  let pack: string;
  let single: string;

  const handled = async (...events: EventEnvelope[]) => {
    await h.publish(...events);
    await waitFor(
      async () =>
        (
          await h.sql<{ n: number }>(
            'SELECT count(*)::int AS n FROM site_check.handled_events WHERE event_id = ANY($1)',
            [events.map((e) => e.id)],
          )
        )[0].n === events.length,
      `${events.map((e) => e.type).join(', ')} handled`,
    );
  };
  const jobRows = async () =>
    (
      await h.sql<{ job_id: string; poster_id: string | null; tester_id: string | null }>(
        'SELECT job_id, poster_id, tester_id FROM site_check.jobs ORDER BY job_id',
      )
    ).map((r) => ({ id: r.job_id, poster: r.poster_id, tester: r.tester_id }));
  const checkSessions = async () =>
    (await h.sql<{ session_id: string }>('SELECT session_id FROM site_check.checks')).map(
      (r) => r.session_id,
    );

  beforeAll(async () => {
    h = await startHarness('site-check-leaving', {
      SITE_CHECK_CHROMIUM_PATH: '/nonexistent/chromium',
    });
    // A pack of two (one of them claimed), a job alone, and a job never paid.
    pack = await h.payJobs('https://shop.example.com/', poster, [kept, packmate]);
    single = await h.payJobs('https://shop.example.com/', poster, [alone]);
    await handled(
      ev('JobCreated', unpaid, {
        jobId: unpaid,
        posterId: poster,
        title: 'Never paid',
        url: 'https://shop.example.com/',
        geoRule: 'global_beta',
        budgetCents: 100,
        expectedCompletionHours: 48,
      }),
      ev('JobClaimed', kept, {
        jobId: kept,
        testerId: tester,
        claimedAt: new Date().toISOString(),
        deadlineAt: new Date(Date.now() + 3600_000).toISOString(),
        by: 'tester',
        posterId: poster,
      }),
    );
    await waitFor(
      async () => (await h.published()).filter((e) => e.type === 'SiteCheckFailed').length === 3,
      'the three paid jobs told (no browser: unavailable)',
    );
  }, 120_000);

  afterAll(async () => {
    await h?.close();
  });

  it('forgets a deleted poster: its unpaid job goes, its id leaves the paid ones, which the admin and the holder still read', async () => {
    const deleted = (userId: string, type: 'poster' | 'tester') =>
      ev('UserDeleted', userId, {
        userId,
        pseudonym: randomUUID(),
        email: `${type}.gone@gmail.com`,
        type,
        deletedAt: new Date().toISOString(),
      });
    await handled(deleted(poster, 'poster'));
    expect(await jobRows()).toEqual(
      [
        { id: kept, poster: null, tester },
        { id: packmate, poster: null, tester: null },
        { id: alone, poster: null, tester: null },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect((await checkSessions()).sort()).toEqual([pack, single].sort());
    expect((await h.read(kept, { id: randomUUID(), type: 'admin' })).status).toBe(200);
    expect((await h.read(kept, { id: tester, type: 'tester' })).status).toBe(200);
    const former = await h.read(kept, { id: poster, type: 'poster' });
    expect([former.status, former.body.code]).toEqual([403, 'not_allowed']);
    // The tester's account goes too: the job they held keeps no id of theirs.
    await handled(deleted(tester, 'tester'));
    expect((await jobRows()).find((r) => r.id === kept)).toEqual({
      id: kept,
      poster: null,
      tester: null,
    });
  });

  it('drops the withdrawn jobs, and a check once none of its checkout is left', async () => {
    await handled(
      ev('JobsWithdrawn', poster, {
        posterId: poster,
        refundJobIds: [packmate, alone],
        reason: 'account_deleted',
      }),
    );
    expect((await jobRows()).map((r) => r.id)).toEqual([kept]);
    // The pack's check stays for the job a tester took; the single job's check is gone.
    expect(await checkSessions()).toEqual([pack]);
    const gone = await h.read(alone, { id: randomUUID(), type: 'admin' });
    expect([gone.status, gone.body.code]).toEqual([404, 'site_check_not_found']);
  });

  it("clears every job and check at the admin's clear-all, but not a job posted after it whose payment came first", async () => {
    const later = randomUUID();
    const session = `cs_${randomUUID()}`;
    const paid = ev('JobPaid', later, {
      jobId: later,
      sessionId: session,
      posterId: randomUUID(),
      amountCents: 100,
      paidAt: new Date().toISOString(),
    });
    await handled(
      paid,
      ev('JobsCleared', 'all-jobs', {
        jobsDeleted: 1,
        submissionsDeleted: 0,
        refundJobIds: [kept],
      }),
    );
    expect((await jobRows()).map((r) => r.id)).toEqual([later]);
    expect(await checkSessions()).toEqual([]);
    // Its JobCreated follows on the jobs stream: its check is made and told.
    await handled(
      ev('JobCreated', later, {
        jobId: later,
        posterId: paid.data.posterId,
        title: 'Posted after the clear',
        url: 'https://shop.example.com/',
        geoRule: 'global_beta',
        budgetCents: 100,
        expectedCompletionHours: 48,
      }),
    );
    expect(await checkSessions()).toEqual([session]);
  });
});
