import type { JobView as Job } from '@htm/contracts/jobs';
import { SubmitWorkForm } from './submit-work-form';

export { DETAILED_REPORT, DETAILED_REPORT_LINE } from './submit-work-form';

/**
 * 'Detailed report' (poster-flow variant, POST /submissions): a response per requirement,
 * device, browser, 3 key findings, files. The one Submit Work form (submit-work-form.tsx),
 * poster-flow variant.
 */
export function SubmitReportModal({ job, onClose }: { job: Job; onClose: () => void }) {
  return <SubmitWorkForm job={job} onClose={onClose} kind="poster_flow" />;
}
