/**
 * A Postgres connection that dies while a service holds it (restart, failover) must not cost the
 * pool its slot: drizzle's transaction() never releases a client whose BEGIN fails, and such a
 * leak used to exhaust the pool and hang shutdown.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { leakProofPool } from '@htm/service-kit/db';
import { createTestDatabase, waitFor, type TestDatabase } from '@htm/service-kit/testing';

let db: TestDatabase;
let admin: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase('pool');
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await db.drop();
});

async function holdAndLose(Pool: typeof pg.Pool) {
  const pool = new Pool({ connectionString: db.url, max: 1, connectionTimeoutMillis: 1500 });
  pool.on('error', () => undefined);
  const held = await pool.connect();
  held.on('error', () => undefined);
  const pid = (held as unknown as { processID: number }).processID;
  await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  // The holder's next statement fails, as drizzle's BEGIN does, and it never calls release().
  await expect(held.query('BEGIN')).rejects.toThrow();
  return pool;
}

describe('a pool client lost while checked out', () => {
  it('frees its slot by itself: the next connect works and the pool ends', async () => {
    const pool = await holdAndLose(leakProofPool(pg.Pool));
    await waitFor(() => pool.totalCount === 0, 'the lost client removed');
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });

  it('makes the holder’s late release() harmless', async () => {
    const pool = new (leakProofPool(pg.Pool))({ connectionString: db.url, max: 1 });
    pool.on('error', () => undefined);
    const held = await pool.connect();
    held.on('error', () => undefined);
    await admin.query('SELECT pg_terminate_backend($1)', [
      (held as unknown as { processID: number }).processID,
    ]);
    await waitFor(() => pool.totalCount === 0, 'the lost client removed');
    expect(() => held.release()).not.toThrow();
    expect((await pool.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    await pool.end();
  });

  it('is what plain pg.Pool gets wrong (the reason for the wrapper)', async () => {
    const pool = await holdAndLose(pg.Pool);
    await expect(pool.connect()).rejects.toThrow(/timeout/i);
    // Not ended: end() would wait for the leaked client forever.
  });
});
