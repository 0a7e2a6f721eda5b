import type { EventHandlers } from '@htm/events';
import { followTesterApproval } from '../db/waitlist.repository.js';

/**
 * What the admin service consumes (each runs once per event id, in a transaction with the
 * handled-id record). One approval state: when identity approves or un-approves a tester
 * (Testers list, strikes), the tester's signup in Manage shows the same. Nothing is published
 * back, so a signup approval (SignupApproved → identity → TesterApprovalChanged) ends here.
 */
export function adminEventHandlers(): EventHandlers {
  return {
    TesterApprovalChanged: async (e, tx) => {
      await followTesterApproval(tx, e.data.email, e.data.approved);
    },
  };
}
