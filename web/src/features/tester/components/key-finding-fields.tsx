import { useState } from 'react';
import {
  FINDING_LIMITS,
  FINDING_SEVERITIES,
  FINDING_SEVERITY_LABELS,
} from '@htm/contracts/findings';
import { Field } from '../../../components/field';
import { formatMoment } from '../../../lib/format-moment';
import styles from './key-finding-fields.module.css';
import { buttonClass } from '../../../components/button';

/** What the tester typed as a finding's details (all optional); at_ms comes from "Mark moment". */
export interface FindingDetailsDraft {
  severity: string;
  steps: string;
  expected: string;
  actual: string;
  at_ms: number | null;
  /** The thing to check it belongs to (its index as text; '' = none). */
  requirement_index?: string;
}

export const EMPTY_DETAILS: FindingDetailsDraft = {
  severity: '',
  steps: '',
  expected: '',
  actual: '',
  at_ms: null,
  requirement_index: '',
};

export const detailsOf = (details: FindingDetailsDraft[] | undefined, i: number) =>
  details?.[i] ?? EMPTY_DETAILS;

const hasDetails = (d: FindingDetailsDraft) =>
  !!(
    d.severity ||
    d.steps.trim() ||
    d.expected.trim() ||
    d.actual.trim() ||
    d.at_ms !== null ||
    d.requirement_index
  );

/**
 * "Mark moment" while recording: the first finding without a moment gets `atMs`. Returns the new
 * details and the finding's number, or null when all of them have a moment already.
 */
export function markFindingMoment(
  details: FindingDetailsDraft[] | undefined,
  atMs: number,
  count = 3,
): { details: FindingDetailsDraft[]; n: number } | null {
  const all = Array.from({ length: count }, (_, i) => detailsOf(details, i));
  const i = all.findIndex((d) => d.at_ms === null);
  if (i < 0) return null;
  all[i] = { ...all[i], at_ms: Math.round(atMs) };
  return { details: all, n: i + 1 };
}

/** The multipart fields of finding N's details (`${name}_${n}_severity`, ...), only those given. */
export function appendFindingDetails(
  form: FormData,
  name: string,
  details: FindingDetailsDraft[] | undefined,
  count = 3,
) {
  for (let i = 0; i < count; i++) {
    const d = detailsOf(details, i);
    const p = `${name}_${i + 1}`;
    if (d.severity) form.append(`${p}_severity`, d.severity);
    if (d.steps.trim()) form.append(`${p}_steps`, d.steps.trim());
    if (d.expected.trim()) form.append(`${p}_expected`, d.expected.trim());
    if (d.actual.trim()) form.append(`${p}_actual`, d.actual.trim());
    if (d.at_ms !== null) form.append(`${p}_at_ms`, String(d.at_ms));
    if (d.requirement_index) form.append(`${p}_requirement_index`, d.requirement_index);
  }
}

/** The flat fields findingDetailsSchema checks (the same names the server reads). */
export function findingDetailFields(
  name: string,
  details: FindingDetailsDraft[] | undefined,
  count = 3,
): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (let i = 0; i < count; i++) {
    const d = detailsOf(details, i);
    const p = `${name}_${i + 1}`;
    out[`${p}_severity`] = d.severity || null;
    out[`${p}_steps`] = d.steps;
    out[`${p}_expected`] = d.expected;
    out[`${p}_actual`] = d.actual;
    out[`${p}_at_ms`] = d.at_ms;
    out[`${p}_requirement_index`] = d.requirement_index || null;
  }
  return out;
}

/**
 * The 'Key finding N' inputs of both Submit Work modals, each with a length counter and an
 * "Add details" disclosure (severity, steps, expected/actual, the recording's moment). `name`
 * is the form field prefix: the error of input i is `errors[`${name}_${i + 1}`]`.
 */
export function KeyFindingFields({
  values,
  onChange,
  name,
  errors,
  max,
  optionalAfterFirst = false,
  details,
  onDetailsChange,
  requirements = [],
}: {
  values: string[];
  onChange: (values: string[]) => void;
  name: string;
  errors: Record<string, string>;
  max: number;
  optionalAfterFirst?: boolean;
  details?: FindingDetailsDraft[];
  onDetailsChange?: (details: FindingDetailsDraft[]) => void;
  /** The job's things to check: a finding may say which one it belongs to. */
  requirements?: string[];
}) {
  const setDetail = (i: number, patch: Partial<FindingDetailsDraft>) =>
    onDetailsChange?.(
      values.map((_, j) =>
        j === i ? { ...detailsOf(details, j), ...patch } : detailsOf(details, j),
      ),
    );
  return values.map((v, i) => (
    <div className="finding" key={i}>
      <Field
        label={`Key finding ${i + 1}`}
        optional={optionalAfterFirst && i > 0}
        error={errors[`${name}_${i + 1}`] || undefined}
        hint={`${v.length}/${max}`}
      >
        <input
          dir="auto"
          value={v}
          onChange={(e) => onChange(values.map((x, j) => (j === i ? e.target.value : x)))}
        />
      </Field>
      {onDetailsChange ? (
        <FindingDetailsFields
          n={i + 1}
          prefix={`${name}_${i + 1}`}
          value={detailsOf(details, i)}
          errors={errors}
          requirements={requirements}
          onChange={(patch) => setDetail(i, patch)}
        />
      ) : null}
    </div>
  ));
}

function FindingDetailsFields({
  n,
  prefix,
  value,
  errors,
  requirements,
  onChange,
}: {
  n: number;
  prefix: string;
  value: FindingDetailsDraft;
  errors: Record<string, string>;
  requirements: string[];
  onChange: (patch: Partial<FindingDetailsDraft>) => void;
}) {
  const err = (k: string) => errors[`${prefix}_${k}`] || undefined;
  const anyError = ['severity', 'steps', 'expected', 'actual', 'at_ms', 'requirement_index'].some(
    (k) => err(k),
  );
  const [open, setOpen] = useState(() => hasDetails(value));
  const shown = open || anyError;
  return (
    <div className={styles.finding__details}>
      <button
        type="button"
        className={buttonClass('link', 'sm')}
        aria-expanded={shown}
        onClick={() => setOpen(!shown)}
      >
        {shown ? `Hide details of finding ${n}` : `Add details to finding ${n}`}
      </button>
      {value.at_ms !== null ? (
        <span className={styles.finding__moment}>
          {' '}
          at {formatMoment(value.at_ms)} in the recording{' '}
          <button
            type="button"
            className={buttonClass('link', 'sm')}
            onClick={() => onChange({ at_ms: null })}
            aria-label={`Remove the moment of finding ${n}`}
          >
            Remove
          </button>
        </span>
      ) : null}
      {err('at_ms') ? <div className="field__error">{err('at_ms')}</div> : null}
      {shown ? (
        <div className={styles.finding__fields}>
          {requirements.length ? (
            <Field label="Thing to check it belongs to" optional error={err('requirement_index')}>
              <select
                value={value.requirement_index ?? ''}
                onChange={(e) => onChange({ requirement_index: e.target.value })}
              >
                <option value="">None in particular</option>
                {requirements.map((r, k) => (
                  <option key={k} value={String(k)}>
                    {k + 1}. {r.length > 60 ? `${r.slice(0, 60)}…` : r}
                  </option>
                ))}
              </select>
            </Field>
          ) : null}
          <Field label="Severity" optional error={err('severity')}>
            <select value={value.severity} onChange={(e) => onChange({ severity: e.target.value })}>
              <option value="">Not set</option>
              {FINDING_SEVERITIES.map((s) => (
                <option key={s} value={s}>
                  {FINDING_SEVERITY_LABELS[s]}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label="Steps to reproduce"
            optional
            error={err('steps')}
            hint={`${value.steps.length}/${FINDING_LIMITS.stepsMax}`}
          >
            <textarea
              rows={3}
              dir="auto"
              value={value.steps}
              onChange={(e) => onChange({ steps: e.target.value })}
            />
          </Field>
          <Field
            label="What you expected"
            optional
            error={err('expected')}
            hint={`${value.expected.length}/${FINDING_LIMITS.expectedMax}`}
          >
            <input
              dir="auto"
              value={value.expected}
              onChange={(e) => onChange({ expected: e.target.value })}
            />
          </Field>
          <Field
            label="What happened"
            optional
            error={err('actual')}
            hint={`${value.actual.length}/${FINDING_LIMITS.actualMax}`}
          >
            <input
              dir="auto"
              value={value.actual}
              onChange={(e) => onChange({ actual: e.target.value })}
            />
          </Field>
        </div>
      ) : null}
    </div>
  );
}
