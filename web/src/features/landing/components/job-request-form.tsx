import { useState } from 'react';
import { Field, FormMessage } from '../../../components/field';
import { getToken } from '../../../lib/tokens';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { useJoinWaitlistMutation } from '../api/join-waitlist';
import { MSG, SITE_OWNER_ROLE, validateJobRequest, type JobRequest } from '../landing-rules';

const empty: JobRequest = { email: '', url: '', needs: '' };

/** Job request (requires sign-in): stored as a waitlist entry with role 'Site owner'. */
export function JobRequestForm() {
  const [v, setV] = useState<JobRequest>(empty);
  const [join, { isLoading }] = useJoinWaitlistMutation();
  const { errors, result, onSubmit } = useFormSubmit({
    validate: () => (getToken() ? validateJobRequest(v) : MSG.signInFirst),
    send: async () => {
      const res = await join({
        email: v.email.trim().toLowerCase(),
        role: SITE_OWNER_ROLE,
        url: v.url.trim(),
        note: v.needs.trim(),
      });
      if ('error' in res && res.error) return { error: MSG.jobRequestFailure };
      setV(empty);
      return { success: MSG.jobRequestOk };
    },
  });

  return (
    <form className="form" onSubmit={onSubmit} noValidate aria-label="Request a test">
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
          placeholder="e.g. Can a first-time visitor sign up and find pricing?"
          value={v.needs}
          onChange={(e) => setV({ ...v, needs: e.target.value })}
        />
      </Field>
      <FormMessage error={result.error} success={result.success} />
      <button className="btn btn--primary" type="submit" disabled={isLoading}>
        {isLoading ? 'Sending…' : 'Request My $1 Test'}
      </button>
    </form>
  );
}
