import type { EventHandlers } from '@htm/events';
import { followTesterApproval } from '../db/waitlist.repository.js';
import { recordAudit } from '../domain/audit.js';
import { eraseAdminUser } from '../db/privacy.repository.js';

/**
 * What the admin service consumes (each runs once per event id, in a transaction with the
 * handled-id record). One approval state: when identity approves or un-approves a tester
 * (Testers list, strikes), the tester's signup in Manage shows the same. Nothing is published
 * back, so a signup approval (SignupApproved → identity → TesterApprovalChanged) ends here.
 * Admin actions carried out by other services (approvals, assignments, accepts, payouts,
 * clear-all) are written to the append-only audit log.
 */
export function adminEventHandlers(): EventHandlers {
  return {
    TesterApprovalChanged: async (e, tx) => {
      await followTesterApproval(tx, e.data.email, e.data.approved);
      await recordAudit(tx, e);
    },
    // The audit log's rows for the admin actions other services carry out (domain/audit.ts).
    JobClaimed: (e, tx) => recordAudit(tx, e),
    SubmissionAccepted: (e, tx) => recordAudit(tx, e),
    TesterPaid: (e, tx) => recordAudit(tx, e),
    JobsCleared: (e, tx) => recordAudit(tx, e),
    // "Your data, your call": the admin's export or deletion for a user is audited; a deleted user's form entries go.
    DataExportRequested: (e, tx) => recordAudit(tx, e),
    UserDeletionRequested: (e, tx) => recordAudit(tx, e),
    UserDeleted: (e, tx) => eraseAdminUser(tx, e.data, e.data.email),
    AppealDecided: (e, tx) => recordAudit(tx, e),
    // The admin released or confirmed a failed session (jobs' queue, #52).
    SessionDecided: (e, tx) => recordAudit(tx, e),
  };
}
