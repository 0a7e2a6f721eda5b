import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { JOB_LIMITS, JOB_MESSAGES, reviewBodySchema } from '@htm/contracts/jobs';
import { Field, FormMessage } from './field';
import { Loading } from './loading';
import { Modal } from './modal';
import { errorMessage, formErrorMessage } from '../lib/error-message';
import { timeLeft } from '../lib/format';
import { useNotify } from '../lib/hooks';
import type { JobView as Job } from '@htm/contracts/jobs';
import { issuesByField } from '../lib/zod-errors';
import { useGetSubmissionQuery } from '../lib/submission-api';
import { useReviewJobMutation } from '../lib/review-api';
import { FullResults, SubmissionPreview } from './job-results';
import { Form } from './form';

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
    <label className="choice">
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
 * 'Review Submission', for the job's poster and for the admin (Manage → All jobs): preview while
 * locked, decision accept / request revision / reject.
 */
export function ReviewModal({
  job,
  onClose,
  children,
}: {
  job: Job;
  onClose: () => void;
  /** Shown under the results (the poster's rating of a completed job). */
  children?: ReactNode;
}) {
  const { data: submission, error, isLoading } = useGetSubmissionQuery(job.id);
  const [review, { isLoading: saving }] = useReviewJobMutation();
  const [decision, setDecision] = useState<Decision>('');
  const [reason, setReason] = useState('');
  const [issues, setIssues] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const { toast, status } = useNotify();
  const now = useNow();
  const revisionUsed = (job.revision_count ?? 0) >= 1;
  const [accepted, setAccepted] = useState(false);
  const canReview = job.status === 'submitted' && !accepted;
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
        : 'Revision requested. The tester has 48 hours to resubmit.',
    );
    if (decision === 'accept') setAccepted(true);
    else onClose();
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
          <SubmissionPreview submission={submission} />
          {submission.locked ? (
            <p className="notice">
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
          <fieldset className="choice-group">
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
                  : 'One free revision; the tester has 48 hours'
              }
              disabled={revisionUsed}
              decision={decision}
              onPick={setDecision}
            />
            <DecisionChoice
              value="reject"
              label="Reject"
              decision={decision}
              onPick={setDecision}
            />
            {errors.decision && decision !== 'reject' ? (
              <div className="field__error">{errors.decision}</div>
            ) : null}
          </fieldset>
          {decision === 'reject' ? (
            <p className="form-msg form-msg--error" role="alert">
              {JOB_MESSAGES.rejectNotSupported}
            </p>
          ) : null}
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
            <button type="button" className="btn btn--ghost" onClick={onClose}>
              Close
            </button>
            <button
              type="submit"
              className="btn btn--primary"
              disabled={!decision || decision === 'reject' || saving}
            >
              {saving ? 'Submitting…' : 'Submit Review'}
            </button>
          </div>
        </Form>
      ) : (
        <div className="form__actions">
          <button type="button" className="btn btn--primary" onClick={onClose}>
            Close
          </button>
        </div>
      )}
    </Modal>
  );
}
