import { formatValidationError } from './format-error';

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
