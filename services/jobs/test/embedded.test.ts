import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  api,
  outboxEvents,
  paidJob,
  poster,
  startHarness,
  tester,
  waitFor,
  type Harness,
} from './helpers.js';

// The `npm start` shape: PGlite (no DATABASE_URL) with the API and the timer worker in one process.
let h: Harness;
beforeAll(async () => {
  h = await startHarness(
    'embedded',
    { CLAIM_TIMEOUT_MS: '300' },
    { pglite: true, withWorker: true },
  );
});
afterAll(async () => {
  await h?.close();
});

describe('startJobs(env, { withWorker: true }) on PGlite', () => {
  it('runs the API and the timer worker on one shared database', async () => {
    expect(h.svc.ctx.dbHandle.kind).toBe('pglite');
    expect(h.svc.worker).toBeDefined();
    const p = await poster(h);
    const t = await tester(h);
    const job = await paidJob(h, p);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
    await waitFor(
      async () => (await outboxEvents(h, 'JobReleased', job.id)).length === 1,
      'claim timed out',
    );
    const [row] = await h.svc.ctx.dbHandle.query<{ status: string }>(
      'SELECT status FROM jobs.jobs WHERE id = $1',
      [job.id],
    );
    expect(row.status).toBe('open');
  });

  it('pages through the available jobs with the prepared statements', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const posted: string[] = [];
    for (let i = 0; i < 3; i++) posted.push((await paidJob(h, p)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: {
        status: number;
        body: { jobs: Array<{ id: string }>; next_cursor: string | null };
      } = await api(
        h,
        'GET',
        `/api/tester/available-jobs?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        t.token,
      );
      expect(r.status).toBe(200);
      seen.push(...r.body.jobs.map((j) => j.id));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 3)).toEqual(posted.reverse());

    // The read cache hears PGlite's notifications too: a change made behind the API shows at once.
    const listed = async () =>
      (await api(h, 'GET', '/api/tester/available-jobs?limit=50', t.token)).body.jobs.map(
        (j: { id: string }) => j.id,
      );
    expect(await listed()).toContain(posted[0]);
    expect(await listed()).toContain(posted[0]); // now from the cache
    await h.svc.ctx.dbHandle.query(
      `UPDATE jobs.jobs SET status = 'claimed', tester_id = 'someone-else' WHERE id = $1`,
      [posted[0]],
    );
    await waitFor(
      async () => !(await listed()).includes(posted[0]),
      'the changed job to leave the list',
      2000,
    );
  });
});

describe('the claim gate on PGlite', () => {
  // Its own service, without the short claim timeout above: nothing reopens the job but the test.
  let m: Harness;
  beforeAll(async () => {
    m = await startHarness('embedded-gate', {}, { pglite: true });
  });
  afterAll(async () => {
    await m?.close();
  });

  it("hears PGlite's job status notices: a claimed job is refused from memory until it is reopened", async () => {
    const lostInMemory = async () =>
      Number(
        /^jobs_claims_lost_in_memory_total(?:\{[^}]*\})? (\d+)/m.exec(
          await (await fetch(`${m.svc.url}/metrics`)).text(),
        )?.[1] ?? 0,
      );
    const job = await paidJob(m, await poster(m));
    const [first, second] = await Promise.all([tester(m), tester(m)]);
    expect((await api(m, 'POST', `/api/jobs/${job.id}/claim`, first.token)).status).toBe(200);
    const before = await lostInMemory();
    const refused = await api(m, 'POST', `/api/jobs/${job.id}/claim`, second.token);
    expect(refused.body.code).toBe('job_taken');
    expect(await lostInMemory()).toBe(before + 1);
    await m.svc.ctx.dbHandle.query(
      `UPDATE jobs.jobs SET status = 'open', tester_id = NULL, claimed_at = NULL, claim_deadline_at = NULL WHERE id = $1`,
      [job.id],
    );
    await waitFor(
      async () => (await api(m, 'POST', `/api/jobs/${job.id}/claim`, second.token)).status === 200,
      'the reopened job claimed',
      2000,
    );
  });
});
