import type { JobView as Job } from '@htm/contracts/jobs';
import { SubmitWorkForm } from './submit-work-form';

export { QUICK_CHECKLIST_HINT, QUICK_REPORT, QUICK_REPORT_LINE } from './submit-work-form';

/**
 * 'Quick report' (tester dashboard variant, POST /submit-work): feedback, 1-3 key findings,
 * optional screenshot. The one Submit Work form (submit-work-form.tsx), dashboard variant.
 */
export function SubmitWorkModal({ job, onClose }: { job: Job; onClose: () => void }) {
  return <SubmitWorkForm job={job} onClose={onClose} kind="dashboard" />;
}
