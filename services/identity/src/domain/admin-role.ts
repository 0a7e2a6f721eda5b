import { and, eq, ne, or, isNull } from 'drizzle-orm';
import { getCorrelationId, type Tx } from '@htm/service-kit';
import type { IdentityDeps } from '../deps.js';
import { users } from '../db/schema.js';
import { roleChosen } from './sign-in.js';
import { revokeUserSessions } from './sessions.js';

/**
 * Makes the admin role follow ADMIN_EMAIL (at start-up and whenever a refresh meets a row that
 * disagrees): a former admin chooses a role again, the named account becomes admin, and both
 * lose their sign-ins so no token keeps the old role. Returns the ids it changed.
 */
export async function reconcileAdminRole(deps: IdentityDeps): Promise<string[]> {
  const adminEmail = deps.config.ADMIN_EMAIL;
  const correlationId = getCorrelationId();
  const changed = await deps.db.transaction(async (tx) => {
    const demoted = await tx
      .update(users)
      .set({ type: null, approved: false, updatedAt: new Date() })
      .where(and(eq(users.type, 'admin'), adminEmail ? ne(users.email, adminEmail) : undefined))
      .returning({ id: users.id });
    const promoted = adminEmail
      ? await tx
          .update(users)
          .set({ type: 'admin', approved: true, updatedAt: new Date() })
          .where(and(eq(users.email, adminEmail), or(isNull(users.type), ne(users.type, 'admin'))))
          .returning()
      : [];
    for (const u of promoted) await deps.events.record(tx as Tx, roleChosen(u, correlationId));
    return [...demoted.map((u) => u.id), ...promoted.map((u) => u.id)];
  });
  if (changed.length) {
    deps.events.kick();
    deps.logger.warn({ users: changed }, 'admin role recomputed from ADMIN_EMAIL: sessions of the changed accounts revoked');
    await revokeUserSessions(deps, changed, 'role_changed');
  }
  return changed;
}
