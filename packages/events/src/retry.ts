import { runWithCorrelation } from '@htm/service-kit/context';
import { PermanentEventError, type EventEnvelope } from './envelope.js';

/**
 * How a consumer retries a failing handler, shared by every transport. Every error is classified
 * once (`classifyError`):
 * - transient: the database, Redis or a broker unreachable or out of a resource (disk full, out of
 *   memory, too many connections, shutting down), a connection cut, a serialization failure or
 *   deadlock, a timeout. Retried with capped exponential backoff for as long as it takes (no time
 *   limit unless `transientBudgetMs` sets one): a full disk or a database away for hours must not
 *   dead-letter events (completed jobs without earnings, paid jobs hidden).
 * - permanent: the event can never be applied (a bad payload, a validation error). Dead letter at once.
 * - unknown: anything else (a bug, a constraint the handler did not expect): `maxAttempts` attempts.
 */
export interface RetryPolicy {
  /** Attempts for errors that are neither transient nor permanent (default 5). */
  maxAttempts?: number;
  /** First delay; doubles each attempt (default 50 ms). */
  baseDelayMs?: number;
  /** Longest delay between two attempts (default 5 s). */
  maxDelayMs?: number;
  /** How long transient errors are retried before the event is dead-lettered (default: without limit). */
  transientBudgetMs?: number;
}

export type RetryDecision =
  { retry: true; delayMs: number } | { retry: false; reason: 'permanent' | 'attempts' | 'budget' };

export type ErrorClass = 'transient' | 'permanent' | 'unknown';

/**
 * SQLSTATEs that mean "try again later": whole classes 08 (connection exception) and 53
 * (insufficient resources: 53100 disk full, 53200 out of memory, 53300 too many connections,
 * 53400 configuration limit), 58030 (I/O error), and single codes.
 */
const TRANSIENT_SQLSTATE_CLASSES = ['08', '53'];
const TRANSIENT_SQLSTATES = new Set([
  '40001',
  '40P01',
  '55P03',
  '55006',
  '57P01',
  '57P02',
  '57P03',
  '57P05',
  '25P03',
  '57014',
  '58030',
  'XX002',
]);
/** Socket and file-system error codes of a resource or connection (ENOSPC: a full disk). */
const TRANSIENT_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
  'ENOSPC',
  'EDQUOT',
  'ENOMEM',
  'EMFILE',
  'ENFILE',
  'EAGAIN',
  'EBUSY',
  'ERR_SOCKET_CLOSED',
]);
/** Error names of drivers' connection failures (ioredis, kafkajs). */
const TRANSIENT_NAMES =
  /^(?:MaxRetriesPerRequestError|KafkaJSConnectionError|KafkaJSRequestTimeoutError|KafkaJSNumberOfRetriesExceeded|KafkaJSConnectionClosedError|TimeoutError|AbortError)$/;
const TRANSIENT_MESSAGES =
  /connection terminated|connection (?:is )?closed|terminating connection|timeout exceeded when trying to connect|client has encountered a connection error|connection ended|the database system is (?:starting up|shutting down|in recovery mode)|command timed out|stream isn't writeable|socket hang up|read ECONNRESET|Connection is closed|ECONNREFUSED|could not extend file|no space left on device|out of memory|too many (?:connections|clients)|^(?:LOADING|BUSY|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|MISCONF|OOM)\b|Reached the max retries per request limit/i;
/** Error names of payloads that can never be applied. */
const PERMANENT_NAMES = /^(?:PermanentEventError|ZodError|SyntaxError)$/;

/** Classifies an error once, walking its `cause` chain (Drizzle wraps driver errors as "Failed query: ..."). */
export function classifyError(err: unknown): ErrorClass {
  if (err instanceof PermanentEventError) return 'permanent';
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const x = e as {
      code?: unknown;
      name?: unknown;
      message?: unknown;
      cause?: unknown;
      retriable?: unknown;
    };
    if (typeof x.name === 'string' && PERMANENT_NAMES.test(x.name)) return 'permanent';
    const code = typeof x.code === 'string' ? x.code : undefined;
    if (
      code &&
      (TRANSIENT_SQLSTATES.has(code) ||
        TRANSIENT_ERRNOS.has(code) ||
        (code.length === 5 && TRANSIENT_SQLSTATE_CLASSES.includes(code.slice(0, 2))))
    )
      return 'transient';
    if (typeof x.name === 'string' && TRANSIENT_NAMES.test(x.name)) return 'transient';
    if (x.retriable === true) return 'transient'; // kafkajs marks retriable protocol errors
    if (typeof x.message === 'string' && TRANSIENT_MESSAGES.test(x.message)) return 'transient';
    e = x.cause;
  }
  return 'unknown';
}

/** True for errors that a later attempt may not meet (a resource or connection, serialization, timeout). */
export function isTransientError(err: unknown): boolean {
  return classifyError(err) === 'transient';
}

/** Decides whether attempt `attempt` (1-based) that failed with `err` is retried, and after how long. */
export function retryDecision(
  policy: RetryPolicy,
  err: unknown,
  attempt: number,
  firstFailureAt: number,
  now = Date.now(),
): RetryDecision {
  const kind = classifyError(err);
  if (kind === 'permanent') return { retry: false, reason: 'permanent' };
  const base = policy.baseDelayMs ?? 50;
  const delayMs = Math.min(base * 2 ** Math.min(attempt - 1, 20), policy.maxDelayMs ?? 5000);
  if (kind === 'transient') {
    if (
      policy.transientBudgetMs !== undefined &&
      now - firstFailureAt + delayMs > policy.transientBudgetMs
    )
      return { retry: false, reason: 'budget' };
    return { retry: true, delayMs };
  }
  if (attempt >= (policy.maxAttempts ?? 5)) return { retry: false, reason: 'attempts' };
  return { retry: true, delayMs };
}

/** How one transport runs the shared retry loop: its policy, its dead letter, its own waiting. */
export interface RetryLoop {
  policy: RetryPolicy;
  /** Number of the first attempt (a redelivered entry counts its earlier deliveries; default 1). */
  firstAttempt?: number;
  /** Stores the event as a dead letter after its last failed attempt (`attempts` counts them). */
  deadLetter(err: Error, attempts: number): Promise<void>;
  /**
   * Called after a failed attempt that will be retried, before the wait. Return false to stop
   * here and leave the event unacknowledged (the transport's next owner handles it); throw to
   * pass an error on to the transport.
   */
  onRetry?(
    err: unknown,
    attempt: number,
    delayMs: number,
  ): boolean | void | Promise<boolean | void>;
  /**
   * Waits before the next attempt (default: `delayMs` on a timer). A transport caps the wait
   * (Redis: a third of its lease) or keeps its membership alive (Kafka: heartbeat) here. Return
   * false to stop without another attempt, leaving the event unacknowledged.
   */
  sleep?(delayMs: number): Promise<boolean | void>;
  /** Clock (tests). */
  now?(): number;
}

/** What became of one event: handled, dead-lettered, or left unacknowledged for the next owner. */
export type RetryOutcome = 'handled' | 'dead-lettered' | 'stopped';

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The one retry -> dead-letter loop of every transport: runs `handler(event)` (in the event's
 * correlation context) until it succeeds; a PermanentEventError goes to dead letter at once;
 * other failures are retried as `retryDecision` says (transient ones until they succeed, the
 * rest `maxAttempts` times) and dead-lettered when it says stop.
 */
export async function runWithRetry(
  handler: (event: EventEnvelope) => Promise<void>,
  event: EventEnvelope,
  loop: RetryLoop,
): Promise<RetryOutcome> {
  const now = loop.now ?? Date.now;
  const firstFailureAt = now();
  for (let attempt = loop.firstAttempt ?? 1; ; attempt++) {
    try {
      await runWithCorrelation(event.correlationId ?? undefined, () => handler(event));
      return 'handled';
    } catch (err) {
      const decision = retryDecision(loop.policy, err, attempt, firstFailureAt, now());
      if (!decision.retry) {
        await loop.deadLetter(err as Error, attempt);
        return 'dead-lettered';
      }
      if ((await loop.onRetry?.(err, attempt, decision.delayMs)) === false) return 'stopped';
      if ((await (loop.sleep ? loop.sleep(decision.delayMs) : wait(decision.delayMs))) === false)
        return 'stopped';
    }
  }
}
