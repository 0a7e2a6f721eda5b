import { and, count, desc, lt, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { leads } from './schema.js';
import { containsAny } from './search.js';

export type Lead = typeof leads.$inferSelect;

function where(q: string | undefined, extra?: SQL): SQL | undefined {
  return and(containsAny(q, [leads.email, leads.message]), extra);
}

export async function insertLead(
  tx: Tx | Db,
  values: { email: string; message: string },
): Promise<Lead> {
  const [row] = await tx.insert(leads).values(values).returning();
  return row;
}

export async function pageLeads(
  db: Db,
  q: string | undefined,
  page: number,
  pageSize: number,
): Promise<{ rows: Lead[]; total: number }> {
  const [rows, [{ n }]] = await Promise.all([
    db
      .select()
      .from(leads)
      .where(where(q))
      .orderBy(desc(leads.seq))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(leads).where(where(q)),
  ]);
  return { rows, total: Number(n) };
}

export async function* streamLeads(
  db: Db,
  q: string | undefined,
  batchSize = 500,
): AsyncGenerator<Lead> {
  let before: number | undefined;
  for (;;) {
    const rows = await db
      .select()
      .from(leads)
      .where(where(q, before === undefined ? undefined : lt(leads.seq, before)))
      .orderBy(desc(leads.seq))
      .limit(batchSize);
    yield* rows;
    if (rows.length < batchSize) return;
    before = rows[rows.length - 1].seq;
  }
}
