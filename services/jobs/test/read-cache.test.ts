import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, paidJob, poster, startHarness, tester, waitFor, type Harness } from './helpers.js';

// A long TTL, so only a change notification (never expiry) can explain a fresh answer.
let h: Harness;
beforeAll(async () => {
  h = await startHarness('readcache', { READ_CACHE_TTL_MS: '600000' });
});
afterAll(async () => {
  await h?.close();
});

/** The read cache's hit counter for one kind, from the service's Prometheus metrics. */
async function hits(kind: 'page' | 'standing'): Promise<number> {
  const text = await (await fetch(`${h.svc.url}/metrics`)).text();
  const m = new RegExp(
    `^jobs_read_cache_hits_total\\{[^}]*cache="${kind}"[^}]*\\} (\\d+)`,
    'm',
  ).exec(text);
  return m ? Number(m[1]) : 0;
}
async function misses(kind: 'page' | 'standing'): Promise<number> {
  const text = await (await fetch(`${h.svc.url}/metrics`)).text();
  const m = new RegExp(
    `^jobs_read_cache_misses_total\\{[^}]*cache="${kind}"[^}]*\\} (\\d+)`,
    'm',
  ).exec(text);
  return m ? Number(m[1]) : 0;
}
const listIds = async (token: string) => {
  const r = await api<{ jobs: Array<{ id: string }> }>(
    h,
    'GET',
    '/api/tester/available-jobs?limit=50',
    token,
  );
  expect(r.status).toBe(200);
  return r.body.jobs.map((j) => j.id);
};
/** Another process's write: straight to the database, not through this service. */
const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  h.svc.ctx.dbHandle.query<T>(text, params);

describe('the available-jobs read cache', () => {
  it("answers a repeated read from memory, and shows another process's change at once", async () => {
    const t = await tester(h);
    const job = await paidJob(h, await poster(h));
    expect(await listIds(t.token)).toContain(job.id);
    const before = await hits('page');
    expect(await listIds(t.token)).toContain(job.id);
    expect(await hits('page')).toBe(before + 1);

    await sql(`UPDATE jobs.jobs SET status = 'claimed', tester_id = 'someone-else' WHERE id = $1`, [
      job.id,
    ]);
    await waitFor(
      async () => !(await listIds(t.token)).includes(job.id),
      'the claimed job to leave the list',
      2000,
    );
  });

  it('loads a standing and a page once for reads that miss together', async () => {
    const t = await tester(h);
    await paidJob(h, await poster(h)); // a change: the next reads miss
    await waitFor(
      async () => (await listIds(t.token)).length > 0,
      'the list to show the job',
      2000,
    );
    await sql('UPDATE jobs.users SET approved = approved WHERE id = $1', [t.id]); // standings and pages emptied
    const other = await tester(h); // a standing nobody has loaded yet
    const [pagesBefore, standingsBefore] = [await misses('page'), await misses('standing')];
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        api(h, 'GET', '/api/tester/available-jobs?limit=50', other.token),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    // One load each (two if the new tester's own projection change was announced in the middle), not ten.
    expect(await misses('standing')).toBeLessThanOrEqual(standingsBefore + 2);
    expect(await misses('page')).toBeLessThanOrEqual(pagesBefore + 2);
  });

  it("empties on a tester's standing changing in the projection", async () => {
    const t = await tester(h);
    await paidJob(h, await poster(h));
    expect((await api(h, 'GET', '/api/tester/available-jobs', t.token)).status).toBe(200);
    expect((await api(h, 'GET', '/api/tester/available-jobs', t.token)).status).toBe(200);
    await sql('UPDATE jobs.users SET approved = false WHERE id = $1', [t.id]);
    await waitFor(
      async () => (await api(h, 'GET', '/api/tester/available-jobs', t.token)).status === 403,
      'the unapproved tester to be refused',
      2000,
    );
  });

  it("keeps testers' standings when only jobs change, and empties them when submissions change", async () => {
    const t = await tester(h);
    const job = await paidJob(h, await poster(h));
    await listIds(t.token);
    const first = await hits('standing');
    // Another process claims the job: the list changes, the tester's standing is still served from memory.
    await sql(`UPDATE jobs.jobs SET status = 'claimed', tester_id = 'someone-else' WHERE id = $1`, [
      job.id,
    ]);
    await waitFor(
      async () => !(await listIds(t.token)).includes(job.id),
      'the claimed job to leave the list',
      2000,
    );
    expect(await hits('standing')).toBeGreaterThan(first);

    // A change to submissions (the sites a tester has tested) empties standings: the next read loads it again.
    await sql('UPDATE jobs.submissions SET tester_id = tester_id WHERE false');
    await waitFor(
      async () => {
        const before = await hits('standing');
        await listIds(t.token);
        return (await hits('standing')) === before;
      },
      "the standing to be loaded again after the submissions' notification",
      2000,
    );
  });

  it('reads from the database while its listening connection is down, then caches again', async () => {
    const t = await tester(h);
    const job = await paidJob(h, await poster(h));
    await listIds(t.token);
    const killed = await sql<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN jobs_changed%'`,
    );
    expect(killed.length).toBe(1);
    await waitFor(
      async () => !h.svc.deps.readCache.active,
      'the cache to notice the lost connection',
      5000,
    );

    await sql(`UPDATE jobs.jobs SET status = 'claimed', tester_id = 'someone-else' WHERE id = $1`, [
      job.id,
    ]);
    const before = await hits('page');
    expect(await listIds(t.token)).not.toContain(job.id);
    expect(await listIds(t.token)).not.toContain(job.id);
    expect(await hits('page')).toBe(before);

    await waitFor(async () => h.svc.deps.readCache.active, 'the listener to reconnect', 10_000);
    await listIds(t.token);
    await listIds(t.token);
    expect(await hits('page')).toBeGreaterThan(before);
    await sql(`UPDATE jobs.jobs SET status = 'open', tester_id = NULL WHERE id = $1`, [job.id]);
    await waitFor(
      async () => (await listIds(t.token)).includes(job.id),
      'the reopened job to be listed again',
      2000,
    );
  });
});
