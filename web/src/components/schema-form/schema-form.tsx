import { useRef, type ButtonHTMLAttributes, type FormHTMLAttributes, type ReactNode } from 'react';
import { FormProvider, useFormState, type FieldValues } from 'react-hook-form';
import { Form } from '../form';
import type { SchemaFormReturn } from './use-schema-form';
import { buttonClass } from '../button';

/** What a form says after a submit: one error or one success sentence (or nothing yet). */
export interface FormResult {
  error?: string;
  success?: string;
}

type FormProps = Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit'>;

/**
 * The app's form: `<Form>` (noValidate; a failed submit scrolls to and focuses the first field
 * with an error, also when the server's field errors arrive later) around react-hook-form.
 * `onValid` gets the schema's parsed values; a second submit while one runs does nothing.
 */
export function SchemaForm<In extends FieldValues, Out>({
  form,
  onValid,
  onAttempt,
  skip,
  children,
  ...props
}: FormProps & {
  form: SchemaFormReturn<In, Out>;
  onValid: (values: Out) => unknown;
  /** Called on every submit before the check (to clear a form-level message). */
  onAttempt?: () => void;
  /** Called on every submit before the check: true stops it (the form said why itself). */
  skip?: () => boolean;
  children: ReactNode;
}) {
  const running = useRef(false);
  return (
    <FormProvider {...form}>
      <Form
        {...props}
        onSubmit={(e) => {
          e.preventDefault();
          if (running.current) return;
          onAttempt?.();
          if (skip?.()) return;
          running.current = true;
          form
            .handleSubmit(async (values) => {
              await onValid(values);
            })(e)
            .catch((err: unknown) => console.error(err))
            .finally(() => {
              running.current = false;
            });
        }}
      >
        {children}
      </Form>
    </FormProvider>
  );
}

/** The form's submit button: disabled, saying `busyLabel`, while the submit runs. */
export function SubmitButton({
  children,
  busyLabel,
  busy = false,
  disabled,
  className = buttonClass('primary'),
  ...rest
}: Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type'> & {
  children: ReactNode;
  /** Said while submitting (default: the label stays). */
  busyLabel?: ReactNode;
  /** Busy for a reason of the form's own (an upload still running). */
  busy?: boolean;
}) {
  const { isSubmitting } = useFormState();
  const working = isSubmitting || busy;
  return (
    <button type="submit" className={className} disabled={working || disabled} {...rest}>
      {working && busyLabel ? busyLabel : children}
    </button>
  );
}

/** A dialog form's last row: Cancel (closes the dialog, nothing sent) and the submit button. */
export function CancelSubmit({
  onCancel,
  children,
}: {
  onCancel: () => void;
  children: ReactNode;
}) {
  return (
    <div className="form__actions">
      <button type="button" className={buttonClass('ghost')} onClick={onCancel}>
        Cancel
      </button>
      <SubmitButton>{children}</SubmitButton>
    </div>
  );
}
