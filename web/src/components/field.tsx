import { cloneElement, isValidElement, useId, type ReactElement, type ReactNode } from 'react';

interface FieldProps {
  label: ReactNode;
  /** One input, select or textarea; it receives id, aria-invalid and aria-describedby. */
  children: ReactElement<Record<string, unknown>>;
  error?: string | null;
  hint?: ReactNode;
  optional?: boolean;
  className?: string;
}

/** A labelled form control with an optional hint and error text. */
export function Field({ label, children, error, hint, optional, className }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errId = error ? `${id}-err` : undefined;
  const describedBy = [hintId, errId].filter(Boolean).join(' ') || undefined;
  const control = isValidElement(children)
    ? cloneElement(children, {
        id: (children.props.id as string | undefined) ?? id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy,
      })
    : children;
  const controlId = (isValidElement(children) && (children.props.id as string | undefined)) || id;
  return (
    <div className={`field${error ? ' field--error' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={controlId}>
        {label}
        {optional ? <span className="field__optional"> (optional)</span> : null}
      </label>
      {control}
      {hint ? (
        <div className="field__hint" id={hintId}>
          {hint}
        </div>
      ) : null}
      {error ? (
        <div className="field__error" id={errId}>
          {error}
        </div>
      ) : null}
    </div>
  );
}

/** A form-level message: role=alert for errors, role=status for success. */
export function FormMessage({
  error,
  success,
}: {
  error?: string | null;
  success?: string | null;
}) {
  if (error)
    return (
      <p className="form-msg form-msg--error" role="alert">
        {error}
      </p>
    );
  if (success)
    return (
      <p className="form-msg form-msg--success" role="status">
        {success}
      </p>
    );
  return null;
}
