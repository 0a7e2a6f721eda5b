import { useState } from 'react';
import { z } from 'zod';
import { WHO_CAN_TEST } from '@htm/contracts/marketplace';
import { FormMessage } from '../../../components/field';
import {
  SchemaForm,
  Select,
  SubmitButton,
  TextArea,
  TextField,
  useSchemaForm,
  type FormResult,
} from '../../../components/schema-form';
import { errorMessage, errorStatus, isUnreachable } from '../../../lib/error-message';
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
import card from '../../../components/card.module.css';

const empty: TesterSignup = { email: '', role: '', contact: '', about: '' };

/**
 * The form's schema: the landing rules' checks (a Gmail address, one of the tester roles, a
 * contact that is a web address), then the body POST /api/waitlist takes.
 */
const signupSchema = z
  .object({ email: z.string(), role: z.string(), contact: z.string(), about: z.string() })
  .superRefine((v, ctx) => {
    for (const [field, message] of Object.entries(validateTesterSignup(v)))
      ctx.addIssue({ code: 'custom', message, path: [field] });
  })
  .transform((v): WaitlistBody => ({
    email: v.email.trim().toLowerCase(),
    // validateTesterSignup admitted only the tester roles.
    role: v.role as WaitlistBody['role'],
    url: withHttps(v.contact) || undefined,
    note: v.about.trim() || undefined,
  }));

const roleOptions = [['', 'Select…'] as const, ...TESTER_ROLES.map((r) => [r, r] as const)];

/** 409: already signed up; no network or a timeout: can't reach us; else the server's reason. */
function signupError(error: unknown): string {
  const status = errorStatus(error);
  if (status === 409) return MSG.alreadySignedUp;
  // The spec's words for a network failure (what was typed stays in the form).
  if (isUnreachable(error)) return MSG.signupFailure;
  return errorMessage(error, MSG.signupFallback);
}

export function TesterSignupForm() {
  const form = useSchemaForm(signupSchema, empty);
  const email = form.watch('email');
  const [join] = useJoinWaitlistMutation();
  const [result, setResult] = useState<FormResult>({});
  // Whether the last submit refused the address for not being Gmail.
  const [gmailRefused, setGmailRefused] = useState(false);

  const send = async (body: WaitlistBody) => {
    const res = await join(body);
    if ('error' in res && res.error) {
      setResult({ error: signupError(res.error) });
      return;
    }
    form.reset(empty);
    setResult({ success: MSG.signupOk });
  };

  // Sign-in is Google only: someone without Gmail could never log in, so offer the waitlist.
  const noGmail = gmailRefused && !isGmail(email);
  return (
    <>
      <SchemaForm
        form={form}
        onValid={send}
        onAttempt={() => {
          setResult({});
          setGmailRefused(validateTesterSignup(form.getValues()).email === MSG.gmailOnly);
        }}
        className="form"
        aria-label="Tester signup"
      >
        <p className="muted" id="tester-signup-where">
          {WHO_CAN_TEST.summary}
        </p>
        <TextField
          name="email"
          label="Gmail address"
          hint="Sign-in is through Google, so use your Gmail address."
          type="email"
          autoComplete="email"
        />
        <Select name="role" label="Which describes you?" options={roleOptions} />
        <TextField
          name="contact"
          label="Contact info (LinkedIn, portfolio or site URL)"
          optional
          type="text"
          inputMode="url"
          autoComplete="url"
          placeholder="linkedin.com/in/you"
        />
        <TextArea name="about" label="About you" optional rows={3} dir="auto" />
        <FormMessage error={result.error} success={result.success} />
        <SubmitButton busyLabel="Signing up…">Sign Up to Test</SubmitButton>
      </SchemaForm>
      {noGmail ? (
        <section
          className={`${card.card} ${card['card--soft']}`}
          aria-label="Waitlist for other e-mail providers"
        >
          <h3>Join the waitlist</h3>
          <WaitlistForm initialEmail={email.trim()} />
        </section>
      ) : null}
    </>
  );
}
