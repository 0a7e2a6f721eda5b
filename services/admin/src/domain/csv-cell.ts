/**
 * First characters that make a spreadsheet treat a cell as a formula (OWASP "CSV Injection"),
 * plus their full-width forms, which some spreadsheet locales also accept.
 */
const FORMULA_TRIGGERS = new Set([
  '=',
  '+',
  '-',
  '@',
  '\t',
  '\r',
  '\uFF1D',
  '\uFF0B',
  '\uFF0D',
  '\uFF20',
]);

/**
 * Makes one CSV cell inert in spreadsheets: a value starting with `=`, `+`, `-`, `@`, tab or
 * carriage return gets a leading single quote, so `=HYPERLINK("http://x")` is shown as text.
 * Quoting of commas, quotes and newlines is the CSV writer's job, not this function's.
 */
export function neutraliseCell(value: string): string {
  return value.length > 0 && FORMULA_TRIGGERS.has(value[0]) ? `'${value}` : value;
}
