import { PermanentEventError } from './envelope.js';

/**
 * How a consumer retries a failing handler, shared by every transport.
 * - Transient errors (the database or a broker unreachable, a connection cut, a serialization
 *   failure or deadlock, a timeout) are retried with exponential backoff for `transientBudgetMs`
 *   (default 5 minutes): a database restart or failover of a few seconds or minutes must not
 *   dead-letter events (completed jobs without earnings, paid jobs hidden).
 * - Permanent errors (a bad payload) go to dead letter at once.
 * - Anything else (a bug, a constraint the handler did not expect) gets `maxAttempts` attempts.
 */
export interface RetryPolicy {
  /** Attempts for errors that are neither transient nor permanent (default 5). */
  maxAttempts?: number;
  /** First delay; doubles each attempt (default 50 ms). */
  baseDelayMs?: number;
  /** Longest delay between two attempts (default 5 s). */
  maxDelayMs?: number;
  /** How long transient errors are retried before the event is dead-lettered (default 5 min). */
  transientBudgetMs?: number;
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: 'permanent' | 'attempts' | 'budget' };

/** SQLSTATE classes and codes that mean "try again later", and socket-level error codes. */
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '55P03', '57P01', '57P02', '57P03', '53300', '53400', '25P03', '57014']);
const TRANSIENT_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
const TRANSIENT_MESSAGES = /connection terminated|connection (?:is )?closed|terminating connection|timeout exceeded when trying to connect|client has encountered a connection error|connection ended|the database system is (?:starting up|shutting down|in recovery mode)|command timed out|stream isn't writeable|socket hang up|read ECONNRESET|Connection is closed|ECONNREFUSED/i;

/** True for errors that a later attempt may not meet (connection, serialization, timeout). */
export function isTransientError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const x = e as { code?: unknown; errno?: unknown; message?: unknown; cause?: unknown };
    const code = typeof x.code === 'string' ? x.code : undefined;
    if (code && (TRANSIENT_SQLSTATES.has(code) || code.startsWith('08') || TRANSIENT_ERRNOS.has(code))) return true;
    if (typeof x.message === 'string' && TRANSIENT_MESSAGES.test(x.message)) return true;
    // Drizzle wraps driver errors ("Failed query: ...") with the driver error as `cause`.
    e = x.cause;
  }
  return false;
}

/** Decides whether attempt `attempt` (1-based) that failed with `err` is retried, and after how long. */
export function retryDecision(policy: RetryPolicy, err: unknown, attempt: number, firstFailureAt: number, now = Date.now()): RetryDecision {
  if (err instanceof PermanentEventError) return { retry: false, reason: 'permanent' };
  const base = policy.baseDelayMs ?? 50;
  const delayMs = Math.min(base * 2 ** Math.min(attempt - 1, 20), policy.maxDelayMs ?? 5000);
  if (isTransientError(err)) {
    if (now - firstFailureAt + delayMs > (policy.transientBudgetMs ?? 5 * 60_000)) return { retry: false, reason: 'budget' };
    return { retry: true, delayMs };
  }
  if (attempt >= (policy.maxAttempts ?? 5)) return { retry: false, reason: 'attempts' };
  return { retry: true, delayMs };
}
