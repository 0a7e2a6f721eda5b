import { useId, useState } from 'react';
import { Field, FormMessage } from '../../../components/field';
import { formErrorMessage } from '../../../lib/error-message';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { useJoinWaitlistMutation } from '../api/join-waitlist';
import { MSG, canSubmitWaitlist, validateWaitlist } from '../landing-rules';
import { Form } from '../../../components/form';

/** Waitlist for people without Gmail: name + email → POST /api/waitlist (role 'tester'). */
export function WaitlistForm({ initialEmail = '' }: { initialEmail?: string }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState(initialEmail);
  const [join, { isLoading }] = useJoinWaitlistMutation();
  const filled = canSubmitWaitlist(name, email);
  const fillAllId = useId();
  const { errors, result, onSubmit } = useFormSubmit({
    validate: () => validateWaitlist(name, email),
    send: async () => {
      const res = await join({
        email: email.trim().toLowerCase(),
        role: 'tester',
        name: name.trim(),
        note: name.trim(),
      });
      if (!('data' in res && res.data?.success))
        return {
          error:
            'error' in res && res.error
              ? formErrorMessage(res.error, MSG.waitlistFailure)
              : MSG.waitlistFailure,
        };
      setName('');
      setEmail('');
      return { success: MSG.waitlistSuccess };
    },
  });

  return (
    <Form
      className="form form--inline"
      onSubmit={onSubmit}
      noValidate
      aria-label="Join the waitlist"
    >
      <Field label="Name" error={errors.name}>
        <input autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field label="Email" error={errors.email}>
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
        disabled={!filled || isLoading}
        aria-describedby={filled ? undefined : fillAllId}
      >
        {isLoading ? 'Joining…' : 'Join Waitlist'}
      </button>
      {/* The spec: submit stays disabled until both are filled in, and says why. */}
      {filled ? null : (
        <p className="form-msg field__hint" id={fillAllId}>
          {MSG.fillAllFields}
        </p>
      )}
      <FormMessage error={result.error} success={result.success} />
    </Form>
  );
}
