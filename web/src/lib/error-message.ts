import { formatValidationError } from './format-error';

/** What every form says when the server cannot be reached (no answer, or a timeout). */
export const CANT_REACH = "Can't reach HumanTest — your draft is kept; try again in a moment";

/** No answer from the server: a network failure or a timeout (an upload reports status 0). */
export function isUnreachable(error: unknown): boolean {
  const status = errorStatus(error);
  return status === 'FETCH_ERROR' || status === 'TIMEOUT_ERROR' || status === 0;
}

/** A form's message for a failed request: CANT_REACH when unreachable, else the server's reason. */
export function formErrorMessage(error: unknown, fallback: string): string {
  return isUnreachable(error) ? CANT_REACH : errorMessage(error, fallback);
}

/** Reads the server's `detail` (and per-field `errors`) from an API error; else `fallback`. */
export function errorMessage(error: unknown, fallback: string): string {
  if (!error || typeof error !== 'object') return fallback;
  const e = error as { status?: unknown; data?: unknown };
  const data = e.data;
  if (data && typeof data === 'object') {
    const d = data as { detail?: unknown; errors?: unknown };
    if (d.errors && typeof d.errors === 'object' && Object.keys(d.errors).length) {
      const text = formatValidationError({ errors: d.errors });
      if (text && text !== 'Validation failed') return text;
    }
    if (typeof d.detail === 'string' && d.detail.trim()) return d.detail;
  }
  return fallback;
}

/** The first message per field of a validation answer (`errors: {field: [msg]}`), else {}. */
export function serverFieldErrors(error: unknown): Record<string, string> {
  if (!error || typeof error !== 'object') return {};
  const data = (error as { data?: unknown }).data;
  if (!data || typeof data !== 'object') return {};
  const errors = (data as { errors?: unknown }).errors;
  if (!errors || typeof errors !== 'object' || Array.isArray(errors)) return {};
  const out: Record<string, string> = {};
  for (const [field, messages] of Object.entries(errors as Record<string, unknown>)) {
    const first = Array.isArray(messages) ? messages.find((m) => typeof m === 'string') : messages;
    if (typeof first === 'string' && first.trim()) out[field] = first;
  }
  return out;
}

export function errorStatus(error: unknown): number | string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  return (error as { status?: number | string }).status;
}

/** Logs request failures in a structured form (job-posting config: structured error logging). */
export function logRequestFailure(where: string, error: unknown): void {
  const status = errorStatus(error);
  if (status === 403) {
    console.debug('[api] 403', { where, error });
    return;
  }
  console.warn('[api] request failed', { where, status });
}
