import { useState } from 'react';
import { formErrorMessage } from '../lib/error-message';
import { useSendFeedbackMutation } from '../lib/feedback-api';
import { isEmail } from '../lib/format';
import { useFormSubmit } from '../lib/use-form-submit';
import { Field, FormMessage } from './field';
import { Form } from './form';

/** Feedback rules (spec 5): email and feedback required. */
export function validateFeedback(email: string, message: string): Record<string, string> {
  const e: Record<string, string> = {};
  if (!email.trim()) e.email = 'Email is required';
  else if (!isEmail(email)) e.email = 'Please enter a valid email address';
  if (!message.trim()) e.message = 'Feedback is required';
  return e;
}

/** Email + feedback → POST /api/feedback with the current page URL. */
export function FeedbackForm({
  initialEmail = '',
  onSent,
}: {
  initialEmail?: string;
  onSent?: () => void;
}) {
  const [email, setEmail] = useState(initialEmail);
  const [message, setMessage] = useState('');
  const [send, { isLoading }] = useSendFeedbackMutation();
  const { errors, result, onSubmit } = useFormSubmit({
    validate: () => validateFeedback(email, message),
    send: async () => {
      const res = await send({
        email: email.trim().toLowerCase(),
        message: message.trim(),
        page_url: window.location.href,
      });
      if ('error' in res && res.error)
        return { error: formErrorMessage(res.error, 'Failed to submit feedback') };
      setMessage('');
      onSent?.();
      return { success: 'Thanks for your feedback! We read every message.' };
    },
  });

  return (
    <Form className="form" onSubmit={onSubmit} noValidate aria-label="Send feedback">
      <Field label="Your email" error={errors.email}>
        <input
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </Field>
      <Field label="Feedback" error={errors.message}>
        <textarea rows={4} value={message} onChange={(e) => setMessage(e.target.value)} />
      </Field>
      <FormMessage error={result.error} success={result.success} />
      <button className="btn btn--primary" type="submit" disabled={isLoading}>
        {isLoading ? 'Sending…' : 'Send Feedback'}
      </button>
    </Form>
  );
}
