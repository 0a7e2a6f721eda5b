import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { requireServiceToken } from '@htm/service-kit';
import type { TestDatabase, TestIssuer } from '@htm/service-kit/testing';
import { startServiceHarness } from '@htm/events/testing';
import { RedisStreamsBus, type EventEnvelope, type HostedService } from '@htm/events';
import type { AdminConfig } from '../src/config.js';
import { startAdmin } from '../src/main.js';

export const SERVICE_SECRET = 'admin-tests-service-token-secret-0123456789';

export interface AdminHarness {
  svc: HostedService<AdminConfig>;
  issuer: TestIssuer;
  db: TestDatabase;
  url: string;
  close(): Promise<void>;
}

/** The admin service on port 0 against a fresh Postgres database and a private Redis prefix. */
export async function startHarness(
  label: string,
  env: Record<string, string> = {},
): Promise<AdminHarness> {
  const { svc, db, issuer, close } = await startServiceHarness(
    label,
    async (e) => (await startAdmin(e, { port: 0 })) as HostedService<AdminConfig>,
    {
      SERVICE_TOKEN_SECRET: SERVICE_SECRET,
      // Nothing listens here unless a test overrides it.
      JOBS_URL: 'http://127.0.0.1:9',
      ...env,
    },
  );
  return { svc, issuer, db, url: svc.url, close: () => close() };
}

// Tests read arbitrary JSON answers; `any` keeps the assertions short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export async function call(
  h: AdminHarness,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Json; text: string; headers: Headers }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, headers: res.headers };
}

export const adminToken = (h: AdminHarness) =>
  h.issuer.mint({ type: 'admin', email: 'admin@gmail.com' });

/** Every event admin has published to its streams so far. */
export async function publishedEvents(h: AdminHarness): Promise<EventEnvelope[]> {
  const bus = h.svc.ctx.bus as RedisStreamsBus;
  const all: EventEnvelope[] = [];
  for (let p = 0; p < bus.partitions; p++) {
    const entries = await bus.redis.xrange(bus.streamKey('admin', p), '-', '+');
    for (const [, fields] of entries) all.push(JSON.parse(fields[1]) as EventEnvelope);
  }
  return all;
}

/** Waits (bounded) until an event matching `match` reaches the stream, then returns it. */
export async function waitForEvent(
  h: AdminHarness,
  match: (e: EventEnvelope) => boolean,
): Promise<EventEnvelope | undefined> {
  for (let i = 0; i < 100; i++) {
    const found = (await publishedEvents(h)).find(match);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

/** Waits until the outbox has been drained, so "no such event" assertions mean something. */
export async function outboxDrained(h: AdminHarness): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const [{ n }] = await h.svc.ctx.dbHandle.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM admin.outbox WHERE published_at IS NULL',
    );
    if (n === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('outbox not drained');
}

export interface JobsStandIn {
  url: string;
  calls: { service: string; body: unknown; correlationId: string | undefined }[];
  previews: number;
  answer: { status: number; body: unknown };
  /** What jobs' preview answers; `fingerprint` is what its clear insists on. */
  preview: Record<string, unknown> & { fingerprint: string };
  close(): Promise<void>;
}

/** A stand-in for jobs' /internal/jobs/clear-preview and /internal/jobs/clear that checks admin's service token. */
export async function startJobsStandIn(): Promise<JobsStandIn> {
  const app = express();
  app.use(express.json());
  const standIn: JobsStandIn = {
    url: '',
    calls: [],
    previews: 0,
    answer: { status: 200, body: { jobs_deleted: 3, submissions_deleted: 2, refunded_jobs: 1 } },
    preview: {
      jobs_total: 3,
      jobs_by_status: { open: 1, claimed: 1, completed: 1 },
      submissions: 2,
      paid_unfinished: 1,
      paid_unfinished_cents: 100,
      paid_completed: 1,
      paid_completed_cents: 100,
      unpaid: 1,
      fingerprint: 'fp-1',
    },
    close: async () => undefined,
  };
  // Verified as jobs verifies it: admin's own ES256 key (development keys derived from SERVICE_SECRET).
  const verify = requireServiceToken(SERVICE_SECRET, ['admin']);
  const guarded =
    (handler: (req: express.Request, res: express.Response) => void) =>
    (req: express.Request, res: express.Response) => {
      void verify(req, res, (err?: unknown) => {
        if (err) {
          res.status(401).json({ detail: 'Invalid service token.', code: 'invalid_service_token' });
          return;
        }
        handler(req, res);
      });
    };
  app.get(
    '/internal/jobs/clear-preview',
    guarded((_req, res) => {
      standIn.previews++;
      res.json(standIn.preview);
    }),
  );
  app.post(
    '/internal/jobs/clear',
    guarded((req, res) => {
      standIn.calls.push({
        service: String((req as { callerService?: string }).callerService),
        body: req.body,
        correlationId: req.headers['x-correlation-id'] as string | undefined,
      });
      if (standIn.answer.status === 200 && req.body?.fingerprint !== standIn.preview.fingerprint) {
        res
          .status(409)
          .json({ detail: 'The jobs changed since the preview.', code: 'clear_preview_stale' });
        return;
      }
      res.status(standIn.answer.status).json(standIn.answer.body);
    }),
  );
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.close = () => new Promise<void>((r) => server.close(() => r()));
  return standIn;
}
