import { useState, type FormEvent } from 'react';
import { Field, FormMessage } from '../../../components/field';
import { errorMessage } from '../../../lib/error-message';
import { useJoinWaitlistMutation } from '../api/join-waitlist';
import { MSG, canSubmitWaitlist, validateWaitlist } from '../landing-rules';

/** Waitlist for people without Gmail: name + email → POST /api/waitlist (role 'tester'). */
export function WaitlistForm() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [result, setResult] = useState<{ error?: string; success?: string }>({});
  const [join, { isLoading }] = useJoinWaitlistMutation();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const problem = validateWaitlist(name, email);
    if (problem) {
      setResult({ error: problem });
      return;
    }
    setResult({});
    const res = await join({
      email: email.trim().toLowerCase(),
      role: 'tester',
      name: name.trim(),
      note: name.trim(),
    });
    if ('data' in res && res.data?.success) {
      setName('');
      setEmail('');
      setResult({ success: MSG.waitlistSuccess });
    } else {
      setResult({
        error:
          'error' in res && res.error
            ? errorMessage(res.error, MSG.waitlistFailure)
            : MSG.waitlistFailure,
      });
    }
  };

  return (
    <form className="form form--inline" onSubmit={submit} noValidate aria-label="Join the waitlist">
      <Field label="Name">
        <input autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field label="Email">
        <input
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </Field>
      <button
        className="btn btn--primary"
        type="submit"
        disabled={!canSubmitWaitlist(name, email) || isLoading}
      >
        {isLoading ? 'Joining…' : 'Join Waitlist'}
      </button>
      <FormMessage error={result.error} success={result.success} />
    </form>
  );
}
