import { count, desc } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { feedback } from './schema.js';
import { containsAny } from './search.js';

export type Feedback = typeof feedback.$inferSelect;

export async function insertFeedback(
  tx: Tx | Db,
  values: { email: string; message: string; pageUrl: string | null },
): Promise<Feedback> {
  const [row] = await tx.insert(feedback).values(values).returning();
  return row;
}

export async function pageFeedback(
  db: Db,
  q: string | undefined,
  page: number,
  pageSize: number,
): Promise<{ rows: Feedback[]; total: number }> {
  const where = containsAny(q, [feedback.email, feedback.message, feedback.pageUrl]);
  const [rows, [{ n }]] = await Promise.all([
    db
      .select()
      .from(feedback)
      .where(where)
      .orderBy(desc(feedback.createdAt), desc(feedback.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ n: count() }).from(feedback).where(where),
  ]);
  return { rows, total: Number(n) };
}
