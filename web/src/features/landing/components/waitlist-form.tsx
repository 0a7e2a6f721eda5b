import { useId, useState } from 'react';
import { Field, FormMessage } from '../../../components/field';
import { formErrorMessage } from '../../../lib/error-message';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { useJoinWaitlistMutation } from '../api/join-waitlist';
import { MSG, canSubmitWaitlist, validateWaitlist } from '../landing-rules';
import { Form } from '../../../components/form';

/** Waitlist for people without Gmail: name, email and an optional note → POST /api/waitlist (role 'tester'). */
export function WaitlistForm({ initialEmail = '' }: { initialEmail?: string }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState(initialEmail);
  const [note, setNote] = useState('');
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
        // The note is what the visitor wrote in it (their provider, a question), never the name.
        ...(note.trim() ? { note: note.trim() } : {}),
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
      setNote('');
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
      <Field
        label="Note"
        optional
        hint="Which e-mail provider you use, or anything we should know."
      >
        <textarea
          rows={2}
          maxLength={2000}
          value={note}
          onChange={(e) => setNote(e.target.value)}
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
