import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { JOB_LIMITS, JOB_MESSAGES, reviewBodySchema } from '@htm/contracts/jobs';
import { Field, FormMessage } from './field';
import { Loading } from './loading';
import { Modal } from './modal';
import { errorMessage, formErrorMessage } from '../lib/error-message';
import { jobAllows } from '../lib/job-rules';
import { timeLeft } from '../lib/format';
import { useNotify } from '../lib/hooks';
import type { JobView as Job } from '@htm/contracts/jobs';
import { issuesByField } from '../lib/zod-errors';
import { useGetSubmissionQuery } from '../lib/submission-api';
import { useRequestReplacementMutation, useReviewJobMutation } from '../lib/review-api';
import { REPLACEMENT_TURNAROUND, RULE_WORDS } from '@htm/contracts/marketplace';
import { BusyButton } from './busy-button';
import { FullResults, SubmissionPreview } from './job-results';
import { JobSummary } from './report-summary';
import { Form } from './form';
import { buttonClass } from './button';
import notice from './notice.module.css';
import choice from './choice.module.css';

type Decision = '' | 'accept' | 'request_revision' | 'reject';

function useNow(ms = 30_000) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/** One radio of the decision group, with an optional note under its label. */
function DecisionChoice({
  value,
  label,
  note,
  disabled,
  decision,
  onPick,
}: {
  value: Exclude<Decision, ''>;
  label: string;
  note?: string;
  disabled?: boolean;
  decision: Decision;
  onPick: (d: Decision) => void;
}) {
  return (
    <label className={choice.choice}>
      <input
        type="radio"
        name="decision"
        value={value}
        checked={decision === value}
        disabled={disabled}
        onChange={() => onPick(value)}
      />
      <span>
        <strong>{label}</strong>
        {note ? <small>{note}</small> : null}
      </span>
    </label>
  );
}

/**
 * 'Review Submission', for the job's poster and for the admin (Manage → All jobs): the summary
 * first (what to fix, the reel), the preview while locked, decision accept / request revision /
 * reject.
 */
export function ReviewModal({
  job,
  onClose,
  children,
  focusProblem,
}: {
  job: Job;
  onClose: () => void;
  /** Shown under the results (the poster's rating of a completed job). */
  children?: ReactNode;
  /** The summary's problem N is brought into view (a link from the results e-mail). */
  focusProblem?: number | null;
}) {
  const { data: submission, error, isLoading } = useGetSubmissionQuery(job.id);
  const [review, { isLoading: saving }] = useReviewJobMutation();
  const [replace, { isLoading: replacing }] = useRequestReplacementMutation();
  const [decision, setDecision] = useState<Decision>('');
  const [reason, setReason] = useState('');
  const [issues, setIssues] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const { toast, status } = useNotify();
  const now = useNow();
  // The rules module decides: a submitted job may be accepted, and revised while one is left.
  const revisionUsed = !jobAllows(job, 'request_revision');
  const [accepted, setAccepted] = useState(false);
  const canReview = jobAllows(job, 'accept') && !accepted;
  // Once accepted (here or earlier) there is nothing left to review: these are the results.
  const title = accepted || job.status === 'completed' ? 'Results' : 'Review Submission';

  useEffect(() => {
    if (error) toast(errorMessage(error, 'Failed to load submission'));
  }, [error, toast]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    // The issues box holds one issue per line; the schema splits it into the list it sends.
    const parsed = reviewBodySchema.safeParse({
      decision: decision || undefined,
      reason,
      specific_issues: decision === 'request_revision' ? issues : undefined,
    });
    if (!parsed.success) {
      setErrors(issuesByField(parsed.error.issues));
      return;
    }
    setErrors({});
    const res = await review({
      jobId: job.id,
      decision: parsed.data.decision,
      reason: parsed.data.reason,
      specific_issues: parsed.data.specific_issues,
    });
    if ('error' in res && res.error) {
      setFormError(formErrorMessage(res.error, 'Failed to review job'));
      return;
    }
    status(
      decision === 'accept'
        ? 'Submission accepted. Full results are unlocked.'
        : `Revision requested. The tester has ${RULE_WORDS.revisionWindow} to resubmit.`,
    );
    if (decision === 'accept') setAccepted(true);
    else onClose();
  };

  const getReplacement = async () => {
    const res = await replace(job.id);
    if ('error' in res && res.error) {
      setFormError(formErrorMessage(res.error, 'Failed to get a replacement'));
      return;
    }
    status(
      `A new tester will take this job at no cost to you. Expect their report within ${REPLACEMENT_TURNAROUND} from now.`,
    );
    onClose();
  };

  const countdown = timeLeft(submission?.auto_accept_at ?? job.auto_accept_at, now);
  return (
    <Modal title={title} onClose={onClose} size="lg">
      {isLoading ? <Loading label="Loading submission…" /> : null}
      {error ? (
        <p className="form-msg form-msg--error">
          {errorMessage(error, 'Failed to load submission')}
        </p>
      ) : null}
      {submission ? (
        <>
          <JobSummary jobId={job.id} focusProblem={focusProblem} />
          <SubmissionPreview submission={submission} />
          {canReview && submission.session_check?.replacement_available ? (
            <p className={notice.notice}>
              Not what you paid for? Once per job, another tester can do it again for free (
              {REPLACEMENT_TURNAROUND} from now); this tester is not paid.{' '}
              <BusyButton
                type="button"
                className={buttonClass('secondary')}
                busy={replacing}
                busyLabel="Asking…"
                onClick={getReplacement}
              >
                Get a free replacement
              </BusyButton>
            </p>
          ) : null}
          {submission.locked ? (
            <p className={notice.notice}>
              {accepted
                ? 'Accepted. Unlocking the full results…'
                : `Full results unlock when you accept${countdown ? `, or automatically in ${countdown}` : ''}.`}
            </p>
          ) : (
            <FullResults job={job} submission={submission} />
          )}
          {submission.minutes_spent ? (
            <p className="muted">The tester spent about {submission.minutes_spent} minutes.</p>
          ) : null}
          {children}
        </>
      ) : null}
      {canReview ? (
        <Form className="form" onSubmit={submit} noValidate aria-label="Review decision">
          <fieldset className={choice.group}>
            <legend>Decision</legend>
            <DecisionChoice
              value="accept"
              label="Accept"
              note="Unlock full results and pay the tester"
              decision={decision}
              onPick={setDecision}
            />
            <DecisionChoice
              value="request_revision"
              label="Request revision"
              note={
                revisionUsed
                  ? 'The one free revision has been used'
                  : `One free revision; the tester has ${RULE_WORDS.revisionWindow}`
              }
              disabled={revisionUsed}
              decision={decision}
              onPick={setDecision}
            />
            {/* Not offered (the specification): the rule is said where the choice would be. */}
            <DecisionChoice
              value="reject"
              label="Reject"
              note={JOB_MESSAGES.rejectNotSupported}
              disabled
              decision={decision}
              onPick={setDecision}
            />
            {errors.decision ? <div className="field__error">{errors.decision}</div> : null}
          </fieldset>
          {decision === 'request_revision' ? (
            <>
              <Field label="What should the tester change?" error={errors.reason}>
                <textarea
                  rows={3}
                  dir="auto"
                  value={reason}
                  onChange={(e) => setReason(e.target.value)}
                />
              </Field>
              <Field
                label="Specific issues"
                optional
                error={errors.specific_issues}
                hint={`One issue per line, up to ${JOB_LIMITS.specificIssuesMax}.`}
              >
                <textarea
                  rows={4}
                  dir="auto"
                  value={issues}
                  placeholder={
                    'The checkout button does nothing on mobile\nNo screenshot of the cart'
                  }
                  onChange={(e) => setIssues(e.target.value)}
                />
              </Field>
            </>
          ) : null}
          <FormMessage error={formError} />
          <div className="form__actions">
            <button type="button" className={buttonClass('ghost')} onClick={onClose}>
              Close
            </button>
            <button
              type="submit"
              className={buttonClass('primary')}
              disabled={!decision || decision === 'reject' || saving}
            >
              {saving ? 'Submitting…' : 'Submit Review'}
            </button>
          </div>
        </Form>
      ) : (
        <div className="form__actions">
          <button type="button" className={buttonClass('primary')} onClick={onClose}>
            Close
          </button>
        </div>
      )}
    </Modal>
  );
}
