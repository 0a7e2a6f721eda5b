import { useState } from 'react';
import { Field, FormMessage } from '../../../components/field';
import { keepJobRequestForAfterSignIn } from '../../../lib/drafts';
import { formErrorMessage } from '../../../lib/error-message';
import { getToken } from '../../../lib/tokens';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { useJoinWaitlistMutation } from '../api/join-waitlist';
import { MSG, SITE_OWNER_ROLE, validateJobRequest, type JobRequest } from '../landing-rules';
import { Form } from '../../../components/form';

const empty: JobRequest = { email: '', url: '', needs: '' };

/** Where a signed-out visitor continues: Google sign-in as a site owner (poster intent). */
export const SIGN_IN_TO_CONTINUE_HREF = '/api/auth/google?intent=poster';

/**
 * Job request. Signed in: stored as a waitlist entry with role 'Site owner' (every request is
 * kept). Signed out: the request is kept as the Post New Job draft and the visitor is offered
 * "Sign in with Google to continue"; after sign-in Post New Job opens with it, ready to pay.
 */
export function JobRequestForm() {
  const [v, setV] = useState<JobRequest>(empty);
  const [needsSignIn, setNeedsSignIn] = useState(false);
  const [join, { isLoading }] = useJoinWaitlistMutation();
  const { errors, result, onSubmit } = useFormSubmit({
    validate: () => validateJobRequest(v),
    send: async () => {
      if (!getToken()) {
        keepJobRequestForAfterSignIn(v.url, v.needs);
        setNeedsSignIn(true);
        return {};
      }
      setNeedsSignIn(false);
      const res = await join({
        email: v.email.trim().toLowerCase(),
        role: SITE_OWNER_ROLE,
        url: v.url.trim(),
        note: v.needs.trim(),
      });
      if ('error' in res && res.error)
        return { error: formErrorMessage(res.error, MSG.jobRequestFailure) };
      setV(empty);
      return { success: MSG.jobRequestOk };
    },
  });

  return (
    <Form className="form" onSubmit={onSubmit} noValidate aria-label="Request a test">
      <Field label="Your email" error={errors.email}>
        <input
          type="email"
          autoComplete="email"
          value={v.email}
          onChange={(e) => setV({ ...v, email: e.target.value })}
        />
      </Field>
      <Field label="Website URL" error={errors.url}>
        <input
          type="url"
          inputMode="url"
          placeholder="https://yoursite.com"
          value={v.url}
          onChange={(e) => setV({ ...v, url: e.target.value })}
        />
      </Field>
      <Field label="What should testers look at?" error={errors.needs}>
        <textarea
          rows={3}
          dir="auto"
          placeholder="e.g. Can a first-time visitor sign up and find pricing?"
          value={v.needs}
          onChange={(e) => setV({ ...v, needs: e.target.value })}
        />
      </Field>
      {needsSignIn ? (
        <div className="form-msg form-msg--info" role="status">
          <p>{MSG.draftKept}</p>
          <a className="btn btn--google btn--block" href={SIGN_IN_TO_CONTINUE_HREF}>
            {MSG.signInToContinue}
          </a>
        </div>
      ) : (
        <FormMessage error={result.error} success={result.success} />
      )}
      <button className="btn btn--primary" type="submit" disabled={isLoading}>
        {isLoading ? 'Sending…' : 'Request My $1 Test'}
      </button>
    </Form>
  );
}
