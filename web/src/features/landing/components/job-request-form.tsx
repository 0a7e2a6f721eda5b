import { useState } from 'react';
import { rememberIntent } from '../../../lib/sign-in-intent';
import { useNavigate } from 'react-router';
import {
  rulesSchema,
  SchemaForm,
  SubmitButton,
  TextArea,
  TextField,
  useSchemaForm,
} from '../../../components/schema-form';
import { keepJobRequestForAfterSignIn } from '../../../lib/drafts';
import { MSG, validateJobRequest, type JobRequest } from '../landing-rules';
import { buttonClass } from '../../../components/button';

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
  // Signed in, the account's e-mail is known: only the site and the needs are asked for.
  const form = useSchemaForm(
    rulesSchema<JobRequest>((v) => validateJobRequest(v, !signedIn)),
    empty,
  );
  const [needsSignIn, setNeedsSignIn] = useState(false);
  const navigate = useNavigate();
  const send = (v: JobRequest) => {
    keepJobRequestForAfterSignIn(v.url, v.needs);
    if (signedIn) navigate('/dashboard');
    else setNeedsSignIn(true);
  };

  return (
    <SchemaForm form={form} onValid={send} className="form" aria-label="Request a test">
      {signedIn ? null : (
        <TextField name="email" label="Your email" type="email" autoComplete="email" />
      )}
      <TextField
        name="url"
        label="Website URL"
        type="url"
        inputMode="url"
        placeholder="https://yoursite.com"
      />
      <TextArea
        name="needs"
        label="What should testers look at?"
        rows={3}
        dir="auto"
        placeholder="e.g. Can a first-time visitor sign up and find pricing?"
      />
      {needsSignIn ? (
        <div className="form-msg form-msg--info" role="status">
          <p>{MSG.draftKept}</p>
          <a
            className={buttonClass('google', 'block')}
            href={SIGN_IN_TO_CONTINUE_HREF}
            onClick={() => rememberIntent('poster')}
          >
            {MSG.signInToContinue}
          </a>
        </div>
      ) : null}
      <SubmitButton>{signedIn ? 'Open Post New Job' : 'Request My $1 Test'}</SubmitButton>
      <p className="field__hint">{signedIn ? MSG.jobRequestNextSignedIn : MSG.jobRequestNext}</p>
    </SchemaForm>
  );
}
