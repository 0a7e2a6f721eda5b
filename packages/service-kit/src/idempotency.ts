/**
 * Stripe-style `Idempotency-Key` for the POSTs that create or pay: a repeat with the same key by
 * the same user answers the first answer (status and JSON body) for 24 hours, so a client whose
 * reply was lost can retry without making a second job, payment or submission.
 *
 * - Same key, different request (method, path or JSON body) → 422 `idempotency_key_reused`.
 * - Same key while the first request is still being handled → 409 `idempotency_in_progress`.
 * - Answers of 5xx are forgotten, so a retry runs again: a server error may be transient. 2xx and 4xx answers are kept (Stripe's rule).
 * - A multipart body (uploads) is streamed, not read before the route runs: its fingerprint is the
 *   method and path only.
 *
 * The store is a Postgres table in the owning service's schema (see `IDEMPOTENCY_TABLE_SQL`), in
 * the same database as the rows the request creates: a Redis restart or wipe cannot make a retried
 * POST create a second job, and a database restored from a backup restores keys and rows together.
 * A request that crashed the process leaves its key "in progress" until `lockMs` (5 minutes) has
 * passed; then a retry with the same request takes it over.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from './errors.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Stripe keeps keys 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The table, for a service's migration: `IDEMPOTENCY_TABLE_SQL('jobs')`. */
export const IDEMPOTENCY_TABLE_SQL = (
  schema: string,
) => `CREATE TABLE IF NOT EXISTS "${schema}"."idempotency_keys" (
  "user_id" text NOT NULL,
  "key" text NOT NULL,
  "fingerprint" text NOT NULL,
  "status" integer,
  "body" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "locked_until" timestamp with time zone NOT NULL,
  PRIMARY KEY ("user_id", "key")
);
CREATE INDEX IF NOT EXISTS "idempotency_keys_created_idx" ON "${schema}"."idempotency_keys" ("created_at");`;

type Query = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

export interface IdempotencyOptions {
  /** Raw SQL on the owning service's database (DbHandle.query). */
  query: Query;
  /** The service's Postgres schema holding `idempotency_keys`. */
  schema: string;
  logger: Logger;
  ttlMs?: number;
  /** How long a request may run before a retry may take its key over (default 5 minutes). */
  lockMs?: number;
}

/** Key-sorted JSON, so the same body with its fields in another order is the same request. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function fingerprintOf(req: Request): string {
  const path = req.originalUrl.split('?')[0];
  const body = req.is('application/json') ? stableJson(req.body ?? null) : '';
  return createHash('sha256').update(`${req.method} ${path}\n${body}`).digest('base64url');
}

/**
 * The middleware; mount it after `authenticate` on each route it protects (the key belongs to the
 * signed-in user: two users may use the same key). Without the header the route runs as before.
 */
export function idempotency(opts: IdempotencyOptions): RequestHandler {
  const table = `"${opts.schema}"."idempotency_keys"`;
  const ttlMs = opts.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const lockMs = opts.lockMs ?? 5 * 60 * 1000;
  let lastSweep = 0;

  const sweep = () => {
    if (Date.now() - lastSweep < 60_000) return;
    lastSweep = Date.now();
    opts
      .query(`DELETE FROM ${table} WHERE created_at < now() - make_interval(secs => $1)`, [
        ttlMs / 1000,
      ])
      .catch((err: Error) =>
        opts.logger.warn({ err: err.message }, 'could not delete expired idempotency keys'),
      );
  };

  return (req, res, next) => {
    const raw = req.headers[IDEMPOTENCY_HEADER];
    if (raw === undefined) return next();
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!key || !KEY.test(key)) {
      return next(
        AppError.invalid(
          'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
          { 'Idempotency-Key': ['Must be 1 to 255 visible ASCII characters'] },
          'invalid_idempotency_key',
        ),
      );
    }
    const userId = req.caller?.id;
    if (!userId) return next();
    const fingerprint = fingerprintOf(req);
    sweep();
    void (async () => {
      // Take the key: a new one, one whose 24 h are over, or one a crashed request left behind
      // (same request only). RETURNING answers a row only when this request now owns the key.
      const taken = await opts.query(
        `INSERT INTO ${table} (user_id, key, fingerprint, locked_until)
         VALUES ($1, $2, $3, now() + make_interval(secs => $4))
         ON CONFLICT (user_id, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, status = NULL, body = NULL, created_at = now(), locked_until = EXCLUDED.locked_until
           WHERE ${table}.created_at < now() - make_interval(secs => $5)
              OR (${table}.status IS NULL AND ${table}.locked_until < now() AND ${table}.fingerprint = EXCLUDED.fingerprint)
         RETURNING 1`,
        [userId, key, fingerprint, lockMs / 1000, ttlMs / 1000],
      );
      if (taken.length === 0) {
        const [row] = await opts.query<{
          fingerprint: string;
          status: number | null;
          body: string | null;
        }>(`SELECT fingerprint, status, body FROM ${table} WHERE user_id = $1 AND key = $2`, [
          userId,
          key,
        ]);
        if (!row)
          throw AppError.conflict(
            'A request with this Idempotency-Key was just being handled. Please try again.',
            'idempotency_in_progress',
          );
        if (row.fingerprint !== fingerprint) {
          throw new AppError(
            'unprocessable',
            'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
            { code: 'idempotency_key_reused' },
          );
        }
        if (row.status === null) {
          throw new AppError(
            'conflict',
            'A request with this Idempotency-Key is still being handled. Please wait for its answer and try again.',
            {
              code: 'idempotency_in_progress',
              headers: { 'Retry-After': '1' },
            },
          );
        }
        res.setHeader('Idempotent-Replayed', 'true');
        res
          .status(row.status)
          .type('application/json')
          .send(row.body ?? '');
        return;
      }
      capture(req, res, userId, key);
      next();
    })().catch(next);
  };

  function capture(req: Request, res: Response, userId: string, key: string) {
    let settled = false;
    const forget = () => {
      if (settled) return;
      settled = true;
      opts
        .query(`DELETE FROM ${table} WHERE user_id = $1 AND key = $2 AND status IS NULL`, [
          userId,
          key,
        ])
        .catch((err: Error) =>
          opts.logger.warn({ err: err.message }, 'could not release an idempotency key'),
        );
    };
    const json = res.json.bind(res);
    // The answer is stored before it is sent: a retry arriving right after the reply finds it.
    res.json = ((body: unknown) => {
      if (settled || res.statusCode >= 500) {
        forget();
        return json(body);
      }
      settled = true;
      const text = JSON.stringify(body);
      opts
        .query(`UPDATE ${table} SET status = $3, body = $4 WHERE user_id = $1 AND key = $2`, [
          userId,
          key,
          res.statusCode,
          text,
        ])
        .catch((err: Error) =>
          opts.logger.error(
            { err: err.message, correlationId: req.correlationId },
            'could not store an idempotent answer',
          ),
        )
        .finally(() => json(body));
      return res;
    }) as Response['json'];
    // Answered without JSON (an empty 204): keep the status. A client that went away is no
    // reason to forget the key: the route still runs to its end and stores its answer above;
    // only a crash leaves the key "in progress", until lockMs has passed.
    res.once('finish', () => {
      if (settled) return;
      if (res.statusCode >= 500) return forget();
      settled = true;
      opts
        .query(`UPDATE ${table} SET status = $3, body = '' WHERE user_id = $1 AND key = $2`, [
          userId,
          key,
          res.statusCode,
        ])
        .catch((err: Error) =>
          opts.logger.error({ err: err.message }, 'could not store an idempotent answer'),
        );
    });
  }
}
