import { and, desc, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '@htm/service-kit/db';
import { signingKeys } from './schema.js';

/** All SQL about the generated ES256 signing keys (identity.signing_keys). */

export type SigningKeyRow = typeof signingKeys.$inferSelect;

/** Serialises key creation and rotation across replicas until the transaction ends. */
export async function lockSigningKeys(tx: Tx): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('identity:signing-key'))`);
}

/** The newest key that is not retired. */
export async function findCurrentSigningKey(db: Db | Tx): Promise<SigningKeyRow | undefined> {
  const [row] = await db
    .select()
    .from(signingKeys)
    .where(isNull(signingKeys.retiredAt))
    .orderBy(desc(signingKeys.createdAt))
    .limit(1);
  return row;
}

export async function insertSigningKey(
  db: Db | Tx,
  key: { kid: string; privateJwk: Record<string, unknown>; publicJwk: Record<string, unknown> },
): Promise<void> {
  await db.insert(signingKeys).values(key);
}

/** Retires every key still current (they stay published for the grace period). */
export async function retireSigningKeys(db: Db | Tx): Promise<void> {
  await db.update(signingKeys).set({ retiredAt: new Date() }).where(isNull(signingKeys.retiredAt));
}

/** The public keys to publish: current ones and those retired after `retiredSince`. */
export function listPublishedSigningKeys(
  db: Db | Tx,
  retiredSince: Date,
): Promise<{ kid: string; publicJwk: Record<string, unknown> }[]> {
  return db
    .select({ kid: signingKeys.kid, publicJwk: signingKeys.publicJwk })
    .from(signingKeys)
    .where(or(isNull(signingKeys.retiredAt), and(gt(signingKeys.retiredAt, retiredSince))));
}
