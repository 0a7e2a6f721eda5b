/**
 * PGlite has one connection: a query of the database handle made from inside one of its own
 * transactions would wait for that transaction for good (issue #48: a refund's provider used its
 * own handle inside the event handler's transaction and jammed payments). It fails at once,
 * naming the caller; other call chains wait their turn as before.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { openDatabase, rowsOf, SecondConnectionError, type DbHandle } from '@htm/service-kit/db';

let dir: string;
let pglite: PGlite;
let h: DbHandle;
/** A second service's handle on the same PGlite (as the jobs API and its worker in one process). */
let sibling: DbHandle;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'single-connection-'));
  mkdirSync(path.join(dir, 'meta'));
  writeFileSync(
    path.join(dir, 'meta', '_journal.json'),
    JSON.stringify({
      version: '7',
      dialect: 'postgresql',
      entries: [{ idx: 0, version: '7', when: 1, tag: '0000_init', breakpoints: true }],
    }),
  );
  writeFileSync(
    path.join(dir, '0000_init.sql'),
    'CREATE SCHEMA guard;--> statement-breakpoint\nCREATE TABLE guard.refunds (id text PRIMARY KEY);',
  );
  pglite = new PGlite();
  h = await openDatabase({ schema: 'guard', migrationsFolder: dir, pglite });
  sibling = await openDatabase({ schema: 'guard', migrationsFolder: dir, pglite });
});
afterAll(async () => {
  await pglite?.close();
  rmSync(dir, { recursive: true, force: true });
});

const count = async () =>
  Number(
    rowsOf<{ n: number }>(await h.db.execute(sql`SELECT count(*)::int AS n FROM guard.refunds`))[0]
      .n,
  );

/** The SecondConnectionError in `err`'s cause chain (drizzle reports it as "Failed query: ..."). */
function secondConnection(err: unknown): SecondConnectionError | undefined {
  for (let e = err; e; e = (e as { cause?: unknown }).cause)
    if (e instanceof SecondConnectionError) return e;
  return undefined;
}

/** The bug's shape: a helper that writes through the handle it was built with, not the caller's tx. */
async function bookRefundWithOwnHandle(id: string) {
  await h.db.execute(sql`INSERT INTO guard.refunds (id) VALUES (${id})`);
}

describe('the PGlite handle while one of its transactions is open', () => {
  it('refuses a query of the handle from the transaction at once, naming the caller; the transaction rolls back', async () => {
    const started = Date.now();
    const err = await h.db
      .transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO guard.refunds (id) VALUES ('in-tx')`);
        await bookRefundWithOwnHandle('own-handle');
      })
      .catch((e: unknown) => e);
    expect(secondConnection(err)).toBeInstanceOf(SecondConnectionError);
    expect(Date.now() - started).toBeLessThan(5000);
    const message = secondConnection(err)!.message;
    expect(message).toContain('PGlite has one connection');
    expect(message).toContain('bookRefundWithOwnHandle');
    expect(message).toContain('db-single-connection.test.ts');
    expect(message).toMatch(/Transaction began at: .*db-single-connection\.test\.ts/);
    // Nothing of the failed transaction stayed, and the handle answers again.
    expect(await count()).toBe(0);
  });

  it('refuses a second transaction, a raw query and a sibling handle on the same PGlite the same way', async () => {
    const attempts = [
      () => h.db.transaction(async () => undefined),
      () => h.query('SELECT 1'),
      () => sibling.db.execute(sql`SELECT 1`),
      () => sibling.ping(),
    ];
    for (const attempt of attempts) {
      const err = await h.db.transaction(async () => attempt()).catch((e: unknown) => e);
      expect(secondConnection(err)).toBeInstanceOf(SecondConnectionError);
    }
  });

  it("lets the transaction's own tx, savepoints included, do everything", async () => {
    await h.db.transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO guard.refunds (id) VALUES ('a')`);
      await tx.transaction(async (sp) => {
        await sp.execute(sql`INSERT INTO guard.refunds (id) VALUES ('b')`);
      });
    });
    expect(await count()).toBe(2);
    await h.query('DELETE FROM guard.refunds');
  });

  it('lets other call chains wait their turn (a request while a consumer holds the transaction)', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const tx = h.db.transaction(async (t) => {
      await t.execute(sql`INSERT INTO guard.refunds (id) VALUES ('held')`);
      entered();
      await held;
    });
    await inside;
    // Started outside the transaction's chain: it waits for the commit and then sees the row.
    const other = h.query<{ id: string }>('SELECT id FROM guard.refunds');
    release();
    await tx;
    expect(await other).toEqual([{ id: 'held' }]);
    // After the commit, code that ran inside the transaction may use the handle again.
    await bookRefundWithOwnHandle('after');
    expect(await count()).toBe(2);
  });
});
