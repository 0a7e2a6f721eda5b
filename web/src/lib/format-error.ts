/**
 * Validation error formatter (spec section 5): turns message, msg, issues,
 * errors, formErrors.fieldErrors or nested objects into one text joined by '; '.
 * Fallbacks: 'Validation failed' (an object with nothing readable),
 * 'Please check your inputs' (an empty list); a bare unknown value gives 'Unknown error'.
 */
export function formatValidationError(input: unknown): string {
  if (input === null || input === undefined) return 'Unknown error';
  if (typeof input === 'string') return input.trim() || 'Unknown error';
  if (typeof input === 'number' || typeof input === 'boolean') return 'Unknown error';
  if (input instanceof Error) return input.message || 'Unknown error';
  if (Array.isArray(input)) {
    const parts = unique(input.flatMap((x) => collect(x, 0)));
    return parts.length ? parts.join('; ') : 'Please check your inputs';
  }
  if (typeof input === 'object') {
    const parts = unique(collect(input, 0));
    return parts.length ? parts.join('; ') : 'Validation failed';
  }
  return 'Unknown error';
}

function unique(xs: string[]): string[] {
  return [...new Set(xs.map((x) => x.trim()).filter(Boolean))];
}

function collect(v: unknown, depth: number): string[] {
  if (depth > 6 || v === null || v === undefined) return [];
  if (typeof v === 'string') return [v];
  if (typeof v === 'number' || typeof v === 'boolean') return [];
  if (Array.isArray(v)) return v.flatMap((x) => collect(x, depth + 1));
  if (typeof v !== 'object') return [];
  const o = v as Record<string, unknown>;
  // A field-level message list wins over the generic summary next to it.
  const specific: string[] = [];
  if (o.issues !== undefined) specific.push(...collect(o.issues, depth + 1));
  if (o.errors !== undefined) specific.push(...collectFields(o.errors, depth + 1));
  const fe = (o.formErrors as Record<string, unknown> | undefined)?.fieldErrors;
  if (fe !== undefined) specific.push(...collectFields(fe, depth + 1));
  if (o.fieldErrors !== undefined) specific.push(...collectFields(o.fieldErrors, depth + 1));
  if (specific.length) return specific;
  for (const key of ['message', 'msg', 'detail', 'error']) {
    const m = o[key];
    if (typeof m === 'string' && m.trim()) return [m];
    if (m && typeof m === 'object') {
      const nested = collect(m, depth + 1);
      if (nested.length) return nested;
    }
  }
  // Nested objects: gather whatever messages they hold.
  const known = new Set([
    'issues',
    'errors',
    'formErrors',
    'fieldErrors',
    'message',
    'msg',
    'detail',
    'error',
    'code',
    'status',
    'path',
  ]);
  return Object.entries(o)
    .filter(([k]) => !known.has(k))
    .flatMap(([, x]) => collect(x, depth + 1));
}

function collectFields(v: unknown, depth: number): string[] {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    return Object.values(v as Record<string, unknown>).flatMap((x) => collect(x, depth + 1));
  }
  return collect(v, depth);
}
