import { useState } from 'react';
import { feedbackBodySchema, type FeedbackBody } from '@htm/contracts/admin';
import { formErrorMessage } from '../lib/error-message';
import { useSendFeedbackMutation } from '../lib/feedback-api';
import { FormMessage } from './field';
import {
  formSchema,
  SchemaForm,
  SubmitButton,
  TextArea,
  TextField,
  useSchemaForm,
  type FormResult,
} from './schema-form';

interface FeedbackValues {
  email: string;
  message: string;
}

/**
 * POST /api/feedback's own schema (spec 5: email and feedback required), with the page the
 * form is on as `page_url`.
 */
const feedbackSchema = formSchema(
  (v: FeedbackValues) => ({ ...v, page_url: window.location.href }),
  feedbackBodySchema,
);

/** Email + feedback → POST /api/feedback with the current page URL. */
export function FeedbackForm({
  initialEmail = '',
  onSent,
}: {
  initialEmail?: string;
  onSent?: () => void;
}) {
  const form = useSchemaForm(feedbackSchema, { email: initialEmail, message: '' });
  const [send] = useSendFeedbackMutation();
  const [result, setResult] = useState<FormResult>({});

  const submit = async (body: FeedbackBody) => {
    const res = await send({ ...body, page_url: body.page_url ?? undefined });
    if ('error' in res && res.error) {
      setResult({ error: formErrorMessage(res.error, 'Failed to submit feedback') });
      return;
    }
    form.setValue('message', '');
    onSent?.();
    setResult({ success: 'Thanks for your feedback! We read every message.' });
  };

  return (
    <SchemaForm
      form={form}
      onValid={submit}
      onAttempt={() => setResult({})}
      className="form"
      aria-label="Send feedback"
    >
      <TextField name="email" label="Your email" type="email" autoComplete="email" />
      <TextArea name="message" label="Feedback" rows={4} />
      <FormMessage error={result.error} success={result.success} />
      <SubmitButton busyLabel="Sending…">Send Feedback</SubmitButton>
    </SchemaForm>
  );
}
