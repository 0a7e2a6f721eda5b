import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';

/**
 * PGlite is one Postgres backend in this process: one connection. Its transaction holds that
 * connection until it ends, and every other query (of the database handle, not the transaction's
 * `tx`) waits for it. A query on the handle made *by the transaction's own code* (a repository
 * given `deps.db` instead of `tx`, a provider with its own handle) therefore waits for a
 * transaction that waits for it: the service hangs for good, every later query queued behind it,
 * and a restart replays the same event into the same hang (issue #48).
 *
 * `guardSingleConnection` wraps the PGlite client so that this fails at once instead: while a
 * transaction is open, a query, exec or transaction on the client itself from the same call chain
 * (an AsyncLocalStorage context entered by the transaction's callback) throws
 * SecondConnectionError, naming the caller and where the transaction began. Other call chains (other
 * requests, consumers, timers) still wait their turn, as on one connection they must. A
 * transaction open longer than `slowTransactionMs` is logged with where it began.
 */
export class SecondConnectionError extends Error {
  override name = 'SecondConnectionError';
}

interface OpenTransaction {
  client: object;
  open: boolean;
  /** Where the transaction began (the stack of its caller). */
  began: string;
}

const inside = new AsyncLocalStorage<readonly OpenTransaction[]>();
/** Per raw client: its guarded wrapper and its refusal. */
const guarded = new WeakMap<object, { wrapped: object; refuse: (call: string) => void }>();

/** The client's calls that take the one connection (a transaction's own `tx` never goes through these). */
const CONNECTION_CALLS = new Set(['query', 'exec', 'sql', 'transaction', 'listen', 'unlisten']);

/** Frames of libraries (drizzle, the driver; source-mapped ones too), node and this plumbing say nothing about who asked. */
const PLUMBING = /node:internal|node_modules|service-kit[\\/]src[\\/]db(-single-connection)?\.ts/;

/** The first frames outside the database plumbing of the current stack: who asked. */
function caller(frames = 4): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60; // drizzle's own frames come first
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const lines = stack
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l.startsWith('at ') && !PLUMBING.test(l));
  return lines.slice(0, frames).join(' <- ') || '(not on the stack: see the transaction)';
}

export interface SingleConnectionOptions {
  logger?: Logger;
  /** Log (once per transaction) when one stays open longer than this; 0: never. Default 10 s. */
  slowTransactionMs?: number;
}

/**
 * The PGlite client with the one-connection guard; the same wrapper for the same client (the
 * jobs API and its worker share one PGlite, and so one guard).
 */
export function guardSingleConnection<T extends object>(
  client: T,
  opts: SingleConnectionOptions = {},
): T {
  const known = guarded.get(client);
  if (known) return known.wrapped as T;
  const slowMs = opts.slowTransactionMs ?? 10_000;
  const refuse = (call: string) => {
    const open = inside.getStore()?.find((t) => t.client === client && t.open);
    if (!open) return;
    const who = caller();
    const err = new SecondConnectionError(
      `${call} on the database handle while this call chain's transaction is open: PGlite has one ` +
        `connection, so it would wait for that transaction for good. Use the transaction's tx. ` +
        `Caller: ${who}. Transaction began at: ${open.began}`,
    );
    // Logged here too: drizzle reports it as "Failed query: ..." with this error as its cause.
    opts.logger?.error({ caller: who, began: open.began }, err.message);
    throw err;
  };
  const wrapped = new Proxy(client, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      if (typeof prop !== 'string' || !CONNECTION_CALLS.has(prop)) return value.bind(target);
      if (prop !== 'transaction')
        return (...args: unknown[]) => {
          refuse(prop);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      return (fn: (tx: unknown) => Promise<unknown>, ...rest: unknown[]) => {
        refuse('transaction');
        const began = caller();
        return (value as (...a: unknown[]) => Promise<unknown>).call(
          target,
          async (tx: unknown) => {
            const me: OpenTransaction = { client, open: true, began };
            const slow =
              slowMs > 0
                ? setTimeout(
                    () =>
                      opts.logger?.error(
                        { openForMs: slowMs, began },
                        'a PGlite transaction is still open; every other query waits for it',
                      ),
                    slowMs,
                  ).unref()
                : undefined;
            try {
              return await inside.run([...(inside.getStore() ?? []), me], () => fn(tx));
            } finally {
              me.open = false;
              clearTimeout(slow);
            }
          },
          ...rest,
        );
      };
    },
  });
  guarded.set(client, { wrapped, refuse });
  return wrapped;
}

/** drizzle's calls that build or run a query (`$with` only names one; `query` is checked when it runs). */
const BUILDERS = new Set([
  'select',
  'selectDistinct',
  'selectDistinctOn',
  'insert',
  'update',
  'delete',
  'with',
  'execute',
  'transaction',
  '$count',
  'refreshMaterializedView',
]);

/**
 * drizzle's database over a guarded client, refusing the same way when a query is *built*: its
 * caller is still on the stack then (a query runs when awaited, after the stack that built it is
 * gone, so the client's own refusal can only name drizzle's frames).
 */
export function guardDatabase<D extends object>(db: D, client: object): D {
  const guard = guarded.get(client);
  if (!guard) throw new Error('guardDatabase: the client is not guarded (guardSingleConnection)');
  return new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function' || typeof prop !== 'string' || !BUILDERS.has(prop))
        return value;
      return (...args: unknown[]) => {
        guard.refuse(prop);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
