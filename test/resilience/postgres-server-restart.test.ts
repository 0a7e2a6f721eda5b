/**
 * A real PostgreSQL restart under traffic, on a throwaway cluster of this file's own (initdb +
 * pg_ctl on a free port; the shared server is never touched): the services survive two
 * restarts, only the requests in flight or sent while the server is down fail (JSON errors),
 * every acknowledged write is present once, and everything recovers by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  client,
  signInPoster,
  startStack,
  waitFor,
  JOB,
  type Actor,
  type Stack,
} from '../support/stack.js';
import { count, freePort, PgCluster, sleep } from './helpers.js';

let pg: PgCluster;
let stack: Stack;
let poster: Actor;
beforeAll(async () => {
  pg = await PgCluster.create(await freePort());
  stack = await startStack({
    label: 'pg_server_restart',
    withWorker: false,
    env: { DATABASE_URL: pg.url },
  });
  poster = await signInPoster(stack, 'pgserver.poster@gmail.com');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await pg?.destroy();
}, 180_000); // starting a stack on a busy machine can take over a minute

describe('PostgreSQL restarted under traffic', () => {
  it('loses no acknowledged write, duplicates nothing and heals by itself', async () => {
    const acknowledged: string[] = [];
    const failures: number[] = [];
    let attempted = 0;
    let running = true;
    const worker = async (w: number) => {
      for (let i = 0; running; i++) {
        attempted++;
        const r = await client(stack, poster.token).post('/api/jobs', {
          ...JOB,
          title: `Server restart ${w}-${i}`,
          geo_rule: 'global_beta',
        });
        if (r.status === 201) acknowledged.push(r.body.job.id);
        else {
          failures.push(r.status);
          expect(r.body).toEqual(
            expect.objectContaining({ detail: expect.any(String), code: expect.any(String) }),
          );
          expect(JSON.stringify(r.body)).not.toMatch(
            /\n\s+at |node_modules|terminating connection|ECONNREFUSED/,
          );
          await sleep(50);
        }
      }
    };
    const traffic = Promise.all([worker(1), worker(2)]);
    await sleep(800);
    await pg.restart();
    await sleep(800);
    await pg.restart();
    await sleep(800);
    running = false;
    await traffic;

    await waitFor(
      async () => (await client(stack).get('/api/healthz')).status === 200,
      'healthz green again',
      30_000,
    );
    const after = await client(stack, poster.token).post('/api/jobs', {
      ...JOB,
      title: 'After the server restarts',
      geo_rule: 'global_beta',
    });
    expect(after.status).toBe(201);
    acknowledged.push(after.body.job.id);
    await waitFor(
      async () =>
        (await count(stack, `SELECT count(*) AS n FROM jobs.outbox WHERE published_at IS NULL`)) ===
        0,
      'the jobs outbox drained',
      30_000,
    );

    const present = await count(
      stack,
      `SELECT count(*) AS n FROM jobs.jobs WHERE id = ANY($1::uuid[])`,
      [acknowledged],
    );
    const duplicates = await count(
      stack,
      `SELECT count(*) - count(DISTINCT title) AS n FROM jobs.jobs WHERE title LIKE 'Server restart %'`,
    );
    console.log(
      `postgres server restarted twice under 2 posting clients: attempted ${attempted + 1}, acknowledged ${acknowledged.length}, present ${present}, duplicates ${duplicates}, failed ${failures.length} (${[...new Set(failures)].join('/') || 'none'})`,
    );
    expect(present).toBe(acknowledged.length);
    expect(duplicates).toBe(0);
    expect(failures.every((s) => s >= 500)).toBe(true);
    // Every JobCreated of an acknowledged job left the outbox.
    expect(
      await count(
        stack,
        `SELECT count(*) AS n FROM jobs.outbox WHERE type = 'JobCreated' AND subject = ANY($1::text[]) AND published_at IS NOT NULL`,
        [acknowledged],
      ),
    ).toBe(acknowledged.length);
  }, 90_000);
});
