import { useState } from 'react';
import { Field, FormMessage } from '../../../components/field';
import { SUPPORT_EMAIL } from '../../../lib/config';
import { formErrorMessage } from '../../../lib/error-message';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { useSendLeadMutation } from '../api/send-lead';
import { MSG, validateLead } from '../landing-rules';
import { Form } from '../../../components/form';

/** 'Looking for a Developer?' lead form → POST /api/leads. */
export function DeveloperLeadForm() {
  const [email, setEmail] = useState('');
  const [thoughts, setThoughts] = useState('');
  const [send, { isLoading }] = useSendLeadMutation();
  const { errors, result, onSubmit } = useFormSubmit({
    validate: () => validateLead(email, thoughts),
    send: async () => {
      const res = await send({ email: email.trim().toLowerCase(), message: thoughts.trim() });
      if ('error' in res && res.error) return { error: formErrorMessage(res.error, MSG.failure) };
      setEmail('');
      setThoughts('');
      return { success: MSG.leadOk };
    },
  });

  return (
    <div className="lead">
      <h2 id="lead-title">Looking for a Developer?</h2>
      <p className="muted">
        Testers found something you can't fix yourself? Tell us what you need and we'll connect you
        with a developer. Or write to <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>.
      </p>
      <Form className="form" onSubmit={onSubmit} noValidate aria-labelledby="lead-title">
        <Field label="Your email" error={errors.email}>
          <input
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </Field>
        <Field label="Your thoughts" error={errors.thoughts}>
          <textarea
            rows={3}
            dir="auto"
            value={thoughts}
            onChange={(e) => setThoughts(e.target.value)}
            placeholder="What do you need built or fixed?"
          />
        </Field>
        <FormMessage error={result.error} success={result.success} />
        <button className="btn btn--secondary" type="submit" disabled={isLoading}>
          {isLoading ? 'Sending…' : 'Send'}
        </button>
      </Form>
    </div>
  );
}
