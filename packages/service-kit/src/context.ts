import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export interface RequestContext {
  correlationId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs fn with a correlation id that every log line and outgoing call inside it carries. */
export function runWithCorrelation<T>(correlationId: string | undefined, fn: () => T): T {
  return storage.run({ correlationId: correlationId || randomUUID() }, fn);
}

export function getCorrelationId(): string | undefined {
  return storage.getStore()?.correlationId;
}

export const CORRELATION_HEADER = 'x-correlation-id';

/** Accepts a caller's id only if it is short and harmless; otherwise a fresh one. */
export function sanitizeCorrelationId(value: unknown): string {
  if (typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value)) return value;
  return randomUUID();
}
