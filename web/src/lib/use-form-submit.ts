import { useState, type FormEvent } from 'react';

/** What a form says after a submit: one error or one success sentence (or nothing yet). */
export interface FormResult {
  error?: string;
  success?: string;
}

/**
 * validate -> send -> show the result, for the small forms that post one request.
 * `validate` returns per-field errors, or one sentence for the whole form (shown as the
 * result error, with the field errors cleared); `send` runs only when nothing is wrong and
 * returns the result to show. The caller keeps its own field values and mutation.
 */
export function useFormSubmit({
  validate,
  send,
}: {
  validate: () => Record<string, string> | string | null;
  send: () => Promise<FormResult>;
}) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [result, setResult] = useState<FormResult>({});

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const problems = validate();
    if (typeof problems === 'string') {
      setErrors({});
      setResult({ error: problems });
      return;
    }
    setErrors(problems ?? {});
    setResult({});
    if (problems && Object.keys(problems).length) return;
    setResult(await send());
  };

  return { errors, result, onSubmit };
}
