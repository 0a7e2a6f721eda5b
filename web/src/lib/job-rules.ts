/**
 * What the screens may offer on a job, asked of the rules module (the same refusal function the
 * jobs service answers with), never decided by status checks in a component: a button is there
 * when the rules let its action start from the job as the screen has it (the server decides again).
 */
import type { JobView } from '@htm/contracts/jobs';
import { checkoutRefusal, refusalFor, type JobAction } from '@htm/contracts/marketplace';

type JobFacts = Pick<JobView, 'status' | 'payment_status' | 'revision_count'>;

/** What the rules module decides a job's next step from, as the API answers it. */
export const jobState = (j: JobFacts) => ({
  status: j.status,
  paymentStatus: j.payment_status,
  revisionCount: j.revision_count,
});

/** Whether the rules let `action` start from this job's state. */
export const jobAllows = (j: JobFacts, action: JobAction): boolean =>
  !refusalFor(jobState(j), action);

/** Whether the job may be paid for (Pay now): checkout refuses a paid job. */
export const jobPayable = (j: Pick<JobView, 'payment_status'>): boolean =>
  !checkoutRefusal({ paymentStatus: j.payment_status });
