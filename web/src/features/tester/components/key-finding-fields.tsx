import { Field } from '../../../components/field';

/**
 * The 'Key finding N' inputs of both Submit Work modals, each with a length counter. `name`
 * is the form field prefix: the error of input i is `errors[`${name}_${i + 1}`]`.
 */
export function KeyFindingFields({
  values,
  onChange,
  name,
  errors,
  max,
  optionalAfterFirst = false,
}: {
  values: string[];
  onChange: (values: string[]) => void;
  name: string;
  errors: Record<string, string>;
  max: number;
  optionalAfterFirst?: boolean;
}) {
  return values.map((v, i) => (
    <Field
      key={i}
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
  ));
}
