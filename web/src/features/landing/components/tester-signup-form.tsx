import { useState } from 'react';
import { WHO_CAN_TEST } from '@htm/contracts/marketplace';
import { Field, FormMessage } from '../../../components/field';
import { errorMessage, errorStatus, isUnreachable } from '../../../lib/error-message';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { useJoinWaitlistMutation, type WaitlistBody } from '../api/join-waitlist';
import {
  MSG,
  TESTER_ROLES,
  isGmail,
  validateTesterSignup,
  withHttps,
  type TesterSignup,
} from '../landing-rules';
import { WaitlistForm } from './waitlist-form';
import { Form } from '../../../components/form';

const empty: TesterSignup = { email: '', role: '', contact: '', about: '' };

/** 409: already signed up; no network or a timeout: can't reach us; else the server's reason. */
function signupError(error: unknown): string {
  const status = errorStatus(error);
  if (status === 409) return MSG.alreadySignedUp;
  // The spec's words for a network failure (what was typed stays in the form).
  if (isUnreachable(error)) return MSG.signupFailure;
  return errorMessage(error, MSG.signupFallback);
}

export function TesterSignupForm() {
  const [v, setV] = useState<TesterSignup>(empty);
  const [join, { isLoading }] = useJoinWaitlistMutation();
  const { errors, result, onSubmit } = useFormSubmit({
    validate: () => validateTesterSignup(v),
    send: async () => {
      const res = await join({
        email: v.email.trim().toLowerCase(),
        // validateTesterSignup admitted only the tester roles.
        role: v.role as WaitlistBody['role'],
        url: withHttps(v.contact) || undefined,
        note: v.about.trim() || undefined,
      });
      if ('error' in res && res.error) return { error: signupError(res.error) };
      setV(empty);
      return { success: MSG.signupOk };
    },
  });

  // Sign-in is Google only: someone without Gmail could never log in, so offer the waitlist.
  const noGmail = errors.email === MSG.gmailOnly && !isGmail(v.email);
  return (
    <>
      <Form className="form" onSubmit={onSubmit} noValidate aria-label="Tester signup">
        <p className="muted" id="tester-signup-where">
          {WHO_CAN_TEST.summary}
        </p>
        <Field
          label="Gmail address"
          error={errors.email}
          hint="Sign-in is through Google, so use your Gmail address."
        >
          <input
            type="email"
            autoComplete="email"
            value={v.email}
            onChange={(e) => setV({ ...v, email: e.target.value })}
          />
        </Field>
        <Field label="Which describes you?" error={errors.role}>
          <select value={v.role} onChange={(e) => setV({ ...v, role: e.target.value })}>
            <option value="">Select…</option>
            {TESTER_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Contact info (LinkedIn, portfolio or site URL)"
          optional
          error={errors.contact}
        >
          <input
            type="text"
            inputMode="url"
            autoComplete="url"
            placeholder="linkedin.com/in/you"
            value={v.contact}
            onChange={(e) => setV({ ...v, contact: e.target.value })}
          />
        </Field>
        <Field label="About you" optional error={errors.about}>
          <textarea
            rows={3}
            dir="auto"
            value={v.about}
            onChange={(e) => setV({ ...v, about: e.target.value })}
          />
        </Field>
        <FormMessage error={result.error} success={result.success} />
        <button className="btn btn--primary" type="submit" disabled={isLoading}>
          {isLoading ? 'Signing up…' : 'Sign Up to Test'}
        </button>
      </Form>
      {noGmail ? (
        <section className="card card--soft" aria-label="Waitlist for other e-mail providers">
          <h3>Join the waitlist</h3>
          <WaitlistForm initialEmail={v.email.trim()} />
        </section>
      ) : null}
    </>
  );
}
