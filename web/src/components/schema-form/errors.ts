import type { FieldErrors, FieldValues, Path, UseFormSetError } from 'react-hook-form';

/** A node of react-hook-form's error tree (a field's error, or an object/array of them). */
type Node = { message?: unknown; root?: { message?: unknown } } & Record<string, unknown>;

function at(errors: FieldErrors, name: string): unknown {
  let node: unknown = errors;
  for (const key of name.split('.')) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function first(node: unknown): string | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const n = node as Node;
  if (typeof n.message === 'string' && n.message) return n.message;
  if (n.root && typeof n.root.message === 'string' && n.root.message) return n.root.message;
  for (const [key, child] of Object.entries(n)) {
    if (key === 'ref' || key === 'root' || key === 'types' || key === 'message') continue;
    const m = first(child);
    if (m) return m;
  }
  return undefined;
}

/**
 * The message shown for `name` ('title', 'requirements.2'): its own error, else the first one
 * below it (an item's field), as the forms showed with `issuesByField`.
 */
export function errorText(errors: FieldErrors, name: string): string | undefined {
  return first(at(errors, name));
}

/** Only the error said about `name` itself (a list's "add at least one"), not its items'. */
export function ownErrorText(errors: FieldErrors, name: string): string | undefined {
  const n = at(errors, name) as Node | undefined;
  if (!n || typeof n !== 'object') return undefined;
  if (typeof n.message === 'string' && n.message) return n.message;
  if (n.root && typeof n.root.message === 'string' && n.root.message) return n.root.message;
  return undefined;
}

/** True when some item of the list `name` has an error of its own. */
export function hasItemErrors(errors: FieldErrors, name: string): boolean {
  const n = at(errors, name);
  return Array.isArray(n) && n.some((item) => first(item) !== undefined);
}

/**
 * The form's errors flattened like `issuesByField`: 'a' and 'a.0' each get the first message
 * under them. For field groups that take a plain `errors` record.
 */
export function flatErrors(errors: FieldErrors): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, node] of Object.entries(errors)) {
    const m = first(node);
    if (!m) continue;
    out[key] = m;
    if (node && typeof node === 'object') {
      for (const [sub, child] of Object.entries(node as Record<string, unknown>)) {
        if (sub === 'ref' || sub === 'root' || sub === 'types' || sub === 'message') continue;
        const c = first(child);
        if (c) out[`${key}.${sub}`] = c;
      }
    }
  }
  return out;
}

/**
 * A server's 400 field errors (`{ errors: { field: [message] } }`, already picked by
 * `serverFieldErrors`) shown under the fields the form has (`isField`); returns the others.
 */
export function showServerErrors<T extends FieldValues>(
  setError: UseFormSetError<T>,
  byField: Record<string, string>,
  isField: (key: string) => boolean,
): Record<string, string> {
  const rest: Record<string, string> = {};
  for (const [key, message] of Object.entries(byField)) {
    if (isField(key)) setError(key as Path<T>, { type: 'server', message });
    else rest[key] = message;
  }
  return rest;
}
