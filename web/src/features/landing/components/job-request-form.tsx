import { useState } from 'react';
import { rememberIntent } from '../../../lib/sign-in-intent';
import { useNavigate } from 'react-router';
import { Field, FormMessage } from '../../../components/field';
import { keepJobRequestForAfterSignIn } from '../../../lib/drafts';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { MSG, validateJobRequest, type JobRequest } from '../landing-rules';
import { Form } from '../../../components/form';

const empty: JobRequest = { email: '', url: '', needs: '' };

/** Where a signed-out visitor continues: Google sign-in as a site owner (poster intent). */
export const SIGN_IN_TO_CONTINUE_HREF = '/api/auth/google?intent=poster';

/**
 * Job request. Signed in: Post New Job opens on the dashboard with it (URL, what to test, the
 * things to check), ready to pay; nothing is filed by hand. Signed out: the request is kept as
 * the Post New Job draft, what was typed stays, and the visitor is offered "Sign in with Google
 * to continue"; after sign-in Post New Job opens with it.
 */
export function JobRequestForm({ signedIn = false }: { signedIn?: boolean }) {
  const [v, setV] = useState<JobRequest>(empty);
  const [needsSignIn, setNeedsSignIn] = useState(false);
  const navigate = useNavigate();
  const { errors, result, onSubmit } = useFormSubmit({
    // Signed in, the account's e-mail is known: only the site and the needs are asked for.
    validate: () => validateJobRequest(v, !signedIn),
    send: async () => {
      keepJobRequestForAfterSignIn(v.url, v.needs);
      if (signedIn) {
        navigate('/dashboard');
        return {};
      }
      setNeedsSignIn(true);
      return {};
    },
  });

  return (
    <Form className="form" onSubmit={onSubmit} noValidate aria-label="Request a test">
      {signedIn ? null : (
        <Field label="Your email" error={errors.email}>
          <input
            type="email"
            autoComplete="email"
            value={v.email}
            onChange={(e) => setV({ ...v, email: e.target.value })}
          />
        </Field>
      )}
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
          <a
            className="btn btn--google btn--block"
            href={SIGN_IN_TO_CONTINUE_HREF}
            onClick={() => rememberIntent('poster')}
          >
            {MSG.signInToContinue}
          </a>
        </div>
      ) : (
        <FormMessage error={result.error} success={result.success} />
      )}
      <button className="btn btn--primary" type="submit">
        {signedIn ? 'Open Post New Job' : 'Request My $1 Test'}
      </button>
      <p className="field__hint">{signedIn ? MSG.jobRequestNextSignedIn : MSG.jobRequestNext}</p>
    </Form>
  );
}
