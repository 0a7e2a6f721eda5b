import { getCorrelationId } from '@htm/service-kit';
import type { IdentityDeps } from '../deps.js';
import { lockAdminMismatches, setRole } from '../db/user.repository.js';
import { roleChosen } from './sign-in.js';
import { revokeUserSessions } from './revoke-sessions.js';

/**
 * Makes the admin role follow ADMIN_EMAIL (at start-up and whenever a refresh meets a row that
 * disagrees): a former admin chooses a role again, the named account becomes admin, and both
 * lose their sign-ins so no token keeps the old role. Returns the ids it changed.
 */
export async function reconcileAdminRole(deps: IdentityDeps): Promise<string[]> {
  const adminEmail = deps.config.ADMIN_EMAIL;
  const correlationId = getCorrelationId();
  const changed = await deps.events.inTransaction(async (tx) => {
    const { demote, promote } = await lockAdminMismatches(tx, adminEmail);
    for (const u of demote) await setRole(tx, u.id, { type: null, approved: false });
    for (const u of promote) {
      const row = await setRole(tx, u.id, { type: 'admin', approved: true });
      await deps.events.record(tx, roleChosen(row, correlationId));
    }
    return [...demote.map((u) => u.id), ...promote.map((u) => u.id)];
  });
  if (changed.length) {
    deps.logger.warn(
      { users: changed },
      'admin role recomputed from ADMIN_EMAIL: sessions of the changed accounts revoked',
    );
    await revokeUserSessions(deps, changed, 'role_changed');
  }
  return changed;
}
