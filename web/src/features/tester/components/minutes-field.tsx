import { JOB_LIMITS } from '@htm/contracts/jobs';
import { Field } from '../../../components/field';

/** "Minutes spent" (optional, 1-240) of both Submit Work modals: it feeds the tester's hourly rate. */
export function MinutesField({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (v: string) => void;
  error?: string;
}) {
  return (
    <Field
      label="Minutes spent"
      optional
      error={error || undefined}
      hint="How long this test took you. It shows your effective hourly rate on the Earnings tab."
    >
      <input
        type="number"
        inputMode="numeric"
        min={JOB_LIMITS.minutesMin}
        max={JOB_LIMITS.minutesMax}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </Field>
  );
}
