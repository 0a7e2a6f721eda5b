import { useState, type FormEvent } from 'react';
import { Field, FormMessage } from '../../../components/field';
import { errorMessage, errorStatus } from '../../../lib/error-message';
import { useJoinWaitlistMutation } from '../api/join-waitlist';
import { MSG, TESTER_ROLES, validateTesterSignup, type TesterSignup } from '../landing-rules';

const empty: TesterSignup = { email: '', role: '', contact: '', about: '' };

export function TesterSignupForm() {
  const [v, setV] = useState<TesterSignup>(empty);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [result, setResult] = useState<{ error?: string; success?: string }>({});
  const [join, { isLoading }] = useJoinWaitlistMutation();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const errs = validateTesterSignup(v);
    setErrors(errs);
    setResult({});
    if (Object.keys(errs).length) return;
    const res = await join({
      email: v.email.trim().toLowerCase(),
      role: v.role,
      url: v.contact.trim() || undefined,
      note: v.about.trim() || undefined,
    });
    if ('error' in res && res.error) {
      const status = errorStatus(res.error);
      if (status === 409) setResult({ error: MSG.alreadySignedUp });
      else if (status === 'FETCH_ERROR' || status === 'TIMEOUT_ERROR')
        setResult({ error: MSG.signupFailure });
      else setResult({ error: errorMessage(res.error, MSG.signupFallback) });
      return;
    }
    setV(empty);
    setResult({ success: MSG.signupOk });
  };

  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Tester signup">
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
      <Field label="Contact info (LinkedIn, portfolio or site URL)" optional error={errors.contact}>
        <input
          type="url"
          inputMode="url"
          placeholder="https://"
          value={v.contact}
          onChange={(e) => setV({ ...v, contact: e.target.value })}
        />
      </Field>
      <Field label="About you" optional error={errors.about}>
        <textarea
          rows={3}
          value={v.about}
          onChange={(e) => setV({ ...v, about: e.target.value })}
        />
      </Field>
      <FormMessage error={result.error} success={result.success} />
      <button className="btn btn--primary" type="submit" disabled={isLoading}>
        {isLoading ? 'Signing up…' : 'Sign Up to Test'}
      </button>
    </form>
  );
}
