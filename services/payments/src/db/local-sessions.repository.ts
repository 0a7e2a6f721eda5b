import { and, eq, ne, or } from 'drizzle-orm';
import type { Db } from '@htm/service-kit/db';
import { checkoutSessions, localProviderSessions } from './schema.js';

/**
 * Local checkouts the provider side has settled (paid, or cancelled/expired) that our side has
 * not recorded yet: a crash between committing the local payment and delivering its webhook.
 */
export async function localSessionsOutOfStep(db: Db, limit = 1000): Promise<string[]> {
  const rows = await db
    .select({ id: localProviderSessions.id })
    .from(localProviderSessions)
    .innerJoin(checkoutSessions, eq(checkoutSessions.id, localProviderSessions.id))
    .where(
      or(
        and(eq(localProviderSessions.paymentStatus, 'paid'), ne(checkoutSessions.status, 'paid')),
        and(eq(localProviderSessions.status, 'expired'), eq(checkoutSessions.status, 'open')),
      ),
    )
    .limit(limit);
  return rows.map((r) => r.id);
}
