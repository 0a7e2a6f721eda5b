import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import { useController, useFormContext, useFormState, useWatch } from 'react-hook-form';
import { Field } from '../field';
import { errorText, hasItemErrors, ownErrorText } from './errors';
import { buttonClass } from '../button';

interface Common {
  /** The value's path in the form ('title', 'requirements.2'). */
  name: string;
  label: ReactNode;
  hint?: ReactNode;
  optional?: boolean;
  className?: string;
  /** Turns the control's text into the form's value (a select of numbers: Number). */
  parse?: (text: string) => unknown;
}

/**
 * The field's value, its error text, an onChange that also clears that error, and `bound`: the
 * props that tie a text control (input, textarea, select) to the form.
 */
function useFieldControl(name: string, parse?: (text: string) => unknown) {
  const {
    field: { ref: attach, ...field },
  } = useController({ name });
  const { errors } = useFormState({ name });
  const { clearErrors } = useFormContext();
  const error = errorText(errors, name);
  const onChange = (text: string) => {
    field.onChange(parse ? parse(text) : text);
    if (error) clearErrors(name);
  };
  const bound = {
    ref: attach,
    name,
    onChange: (e: { target: { value: string } }) => onChange(e.target.value),
    onBlur: field.onBlur,
  };
  return { field, attach, error, onChange, bound };
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'name' | 'value' | 'onChange'>;

/** A labelled `<input>` (text, url, number…) bound to `name`; its error shows under it. */
export function TextField({
  name,
  label,
  hint,
  optional,
  className,
  parse,
  ...input
}: Common & InputProps) {
  const { field, error, bound } = useFieldControl(name, parse);
  return (
    <Field label={label} error={error} hint={hint} optional={optional} className={className}>
      <input {...input} {...bound} value={(field.value as string | number | undefined) ?? ''} />
    </Field>
  );
}

type AreaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'name' | 'value' | 'onChange'>;

/** A labelled `<textarea>` bound to `name`. */
export function TextArea({
  name,
  label,
  hint,
  optional,
  className,
  parse,
  ...area
}: Common & AreaProps) {
  const { field, error, bound } = useFieldControl(name, parse);
  return (
    <Field label={label} error={error} hint={hint} optional={optional} className={className}>
      <textarea {...area} {...bound} value={(field.value as string | undefined) ?? ''} />
    </Field>
  );
}

type SelectProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'name' | 'value' | 'onChange'>;

/** A labelled `<select>` bound to `name`; `options` are [value, text] pairs. */
export function Select({
  name,
  label,
  hint,
  optional,
  className,
  parse,
  options,
  ...select
}: Common & SelectProps & { options: ReadonlyArray<readonly [string | number, ReactNode]> }) {
  const { field, error, bound } = useFieldControl(name, parse);
  return (
    <Field label={label} error={error} hint={hint} optional={optional} className={className}>
      <select {...select} {...bound} value={String(field.value ?? '')}>
        {options.map(([value, text]) => (
          <option key={String(value)} value={String(value)}>
            {text}
          </option>
        ))}
      </select>
    </Field>
  );
}

/**
 * An on/off switch (`label.switch`, or the label class given) bound to a boolean; other props go
 * to the `<input>`.
 */
export function Checkbox({
  name,
  label,
  className = 'switch',
  ...input
}: {
  name: string;
  label: ReactNode;
  className?: string;
} & Omit<InputProps, 'type' | 'checked' | 'className'>) {
  const {
    field: { ref: attach, ...field },
  } = useController({ name });
  const { clearErrors } = useFormContext();
  return (
    <label className={className}>
      <input
        {...input}
        type="checkbox"
        ref={attach}
        name={name}
        checked={!!field.value}
        onChange={(e) => {
          field.onChange(e.target.checked);
          clearErrors(name);
        }}
        onBlur={field.onBlur}
      />
      <span>{label}</span>
    </label>
  );
}

/** The fieldset of a group of options: its legend, the options, and the group's error under them. */
function OptionsFieldset({
  legend,
  error,
  className,
  children,
}: {
  legend: ReactNode;
  error?: string;
  className?: string;
  children: ReactNode;
}) {
  const id = useId();
  const errId = error ? `${id}-err` : undefined;
  return (
    <fieldset
      className={`field${error ? ' field--error' : ''}${className ? ` ${className}` : ''}`}
      aria-describedby={errId}
    >
      <legend>{legend}</legend>
      {children}
      {error ? (
        <div className="field__error" id={errId}>
          {error}
        </div>
      ) : null}
    </fieldset>
  );
}

/**
 * A `<fieldset>` of radio buttons bound to `name`; its error shows under the group. Each option
 * is a `<label>` of class `optionClassName(checked)` ('radio' unless told).
 */
export function RadioGroup({
  name,
  legend,
  options,
  parse,
  className,
  optionClassName = () => 'radio',
}: {
  name: string;
  legend: ReactNode;
  options: ReadonlyArray<readonly [string | number, ReactNode]>;
  parse?: (text: string) => unknown;
  className?: string;
  optionClassName?: (checked: boolean) => string;
}) {
  const { field, attach, error, onChange } = useFieldControl(name, parse);
  return (
    <OptionsFieldset legend={legend} error={error} className={className}>
      {options.map(([value, text], i) => {
        const checked = String(field.value ?? '') === String(value);
        return (
          <label key={String(value)} className={optionClassName(checked)}>
            <input
              type="radio"
              ref={i === 0 ? attach : undefined}
              name={name}
              value={String(value)}
              checked={checked}
              onChange={(e) => onChange(e.target.value)}
            />
            <span>{text}</span>
          </label>
        );
      })}
    </OptionsFieldset>
  );
}

/**
 * A `<fieldset>` of checkboxes bound to `name` (a list of the checked values, in the order they
 * were checked); `children` (a sentence about the choice) go under the legend, the group's
 * error under the boxes.
 */
export function CheckboxGroup<V extends string>({
  name,
  legend,
  options,
  className,
  optionClassName = 'switch',
  children,
}: {
  name: string;
  legend: ReactNode;
  options: ReadonlyArray<readonly [V, ReactNode]>;
  className?: string;
  optionClassName?: string;
  children?: ReactNode;
}) {
  const {
    field: { ref: attach, ...field },
  } = useController({ name });
  const { errors } = useFormState({ name });
  const { clearErrors } = useFormContext();
  const error = errorText(errors, name);
  const list = (field.value as V[] | undefined) ?? [];
  const toggle = (value: V, on: boolean) => {
    const rest = list.filter((x) => x !== value);
    field.onChange(on ? [...rest, value] : rest);
    if (error) clearErrors(name);
  };
  return (
    <OptionsFieldset legend={legend} error={error} className={className}>
      {children}
      {options.map(([value, text], i) => (
        <label className={optionClassName} key={value}>
          <input
            type="checkbox"
            ref={i === 0 ? attach : undefined}
            name={name}
            value={value}
            checked={list.includes(value)}
            onChange={(e) => toggle(value, e.target.checked)}
            onBlur={field.onBlur}
          />
          <span>{text}</span>
        </label>
      ))}
    </OptionsFieldset>
  );
}

/**
 * A list of strings (`name` is a string[]) with add and remove, at least `min` and at most `max`
 * rows; `children(i)` renders row i's fields (named `${name}.${i}`). An error about the list
 * itself ("add at least one") shows under it when no row has one of its own.
 */
export function ListField({
  name,
  min = 1,
  max,
  children,
  addLabel,
  removeLabel,
  blank = '',
}: {
  name: string;
  min?: number;
  max: number;
  children: (i: number, remove: ReactNode) => ReactNode;
  addLabel: ReactNode;
  /** The accessible name of row i's Remove button. */
  removeLabel: (i: number) => string;
  blank?: unknown;
}) {
  const { setValue, clearErrors } = useFormContext();
  const list = (useWatch({ name }) as unknown[] | undefined) ?? [];
  const { errors } = useFormState({ name });
  const listError = hasItemErrors(errors, name) ? undefined : ownErrorText(errors, name);
  const change = (next: unknown[]) => {
    setValue(name, next, { shouldDirty: true });
    clearErrors(name);
  };
  return (
    <>
      {list.map((_, i) => (
        <div className="reqs__row" key={i}>
          {children(
            i,
            <button
              type="button"
              className={buttonClass('ghost', 'sm')}
              onClick={() => list.length > min && change(list.filter((__, j) => j !== i))}
              disabled={list.length <= min}
              aria-label={removeLabel(i)}
            >
              Remove
            </button>,
          )}
        </div>
      ))}
      {listError ? (
        <div className="field__error" role="alert">
          {listError}
        </div>
      ) : null}
      <button
        type="button"
        className={buttonClass('secondary', 'sm')}
        onClick={() => list.length < max && change([...list, blank])}
        disabled={list.length >= max}
      >
        {addLabel}
      </button>
    </>
  );
}
