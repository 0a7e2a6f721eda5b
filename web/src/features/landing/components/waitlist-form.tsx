import { useId, useState } from 'react';
import { z } from 'zod';
import { FormMessage } from '../../../components/field';
import {
  SchemaForm,
  SubmitButton,
  TextArea,
  TextField,
  useSchemaForm,
  type FormResult,
} from '../../../components/schema-form';
import { formErrorMessage } from '../../../lib/error-message';
import { useJoinWaitlistMutation } from '../api/join-waitlist';
import { MSG, canSubmitWaitlist, validateWaitlist } from '../landing-rules';

interface WaitlistValues {
  name: string;
  email: string;
  note: string;
}

/**
 * The form's schema: the landing rules' checks (their messages are the spec's), then the body
 * POST /api/waitlist takes (role 'tester'; the note only when written, never the name).
 */
const waitlistSchema = z
  .object({ name: z.string(), email: z.string(), note: z.string() })
  .superRefine((v, ctx) => {
    for (const [field, message] of Object.entries(validateWaitlist(v.name, v.email)))
      ctx.addIssue({ code: 'custom', message, path: [field] });
  })
  .transform((v) => ({
    email: v.email.trim().toLowerCase(),
    role: 'tester' as const,
    name: v.name.trim(),
    ...(v.note.trim() ? { note: v.note.trim() } : {}),
  }));

/** Waitlist for people without Gmail: name, email and an optional note → POST /api/waitlist (role 'tester'). */
export function WaitlistForm({ initialEmail = '' }: { initialEmail?: string }) {
  const form = useSchemaForm(waitlistSchema, { name: '', email: initialEmail, note: '' });
  const [name, email] = form.watch(['name', 'email']);
  const [join] = useJoinWaitlistMutation();
  const [result, setResult] = useState<FormResult>({});
  const filled = canSubmitWaitlist(name, email);
  const fillAllId = useId();

  const send = async (body: z.output<typeof waitlistSchema>) => {
    const res = await join(body);
    if (!('data' in res && res.data?.success)) {
      setResult({
        error:
          'error' in res && res.error
            ? formErrorMessage(res.error, MSG.waitlistFailure)
            : MSG.waitlistFailure,
      });
      return;
    }
    form.reset({ name: '', email: '', note: '' } satisfies WaitlistValues);
    setResult({ success: MSG.waitlistSuccess });
  };

  return (
    <SchemaForm
      form={form}
      onValid={send}
      onAttempt={() => setResult({})}
      className="form"
      aria-label="Join the waitlist"
    >
      <TextField name="name" label="Name" autoComplete="name" />
      <TextField name="email" label="Email" type="email" autoComplete="email" />
      <TextArea
        name="note"
        label="Note"
        optional
        hint="Which e-mail provider you use, or anything we should know."
        rows={2}
        maxLength={2000}
      />
      <SubmitButton
        busyLabel="Joining…"
        disabled={!filled}
        aria-describedby={filled ? undefined : fillAllId}
      >
        Join Waitlist
      </SubmitButton>
      {/* The spec: submit stays disabled until both are filled in, and says why. */}
      {filled ? null : (
        <p className="form-msg field__hint" id={fillAllId}>
          {MSG.fillAllFields}
        </p>
      )}
      <FormMessage error={result.error} success={result.success} />
    </SchemaForm>
  );
}
