/** Shared arrange helpers for the jobs service tests (real Postgres, real Redis, in-process). */
import express from 'express';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JobView, SubmissionView } from '@htm/contracts';
import { createEvent, type EventData, type EventEnvelope, type EventType } from '@htm/events';
import { listen, requireServiceToken, type RunningServer } from '@htm/service-kit';
import {
  createTestDatabase,
  createTestIssuer,
  testRedisPrefix,
  TEST_REDIS_URL,
  type TestDatabase,
  type TestIssuer,
} from '@htm/service-kit/testing';
import { startJobs, type JobsService } from '../src/main.js';

export const SECRET = 'test-service-token-secret-0123456789abcdef';

export interface PaymentsStandIn {
  url: string;
  requests: Array<{ body: Record<string, unknown>; caller: string | undefined }>;
  down: boolean;
  /** Jobs payments already knows to be paid: their checkout answers 409 already_paid. */
  paidJobs: Set<string>;
  /** While set, checkout calls wait for it (a request kept in flight). */
  hold?: Promise<void>;
  close(): Promise<void>;
}

/** A tiny stand-in for payments' internal checkout route; it insists on the jobs service token. */
export async function startPaymentsStandIn(): Promise<PaymentsStandIn> {
  const app = express();
  const state: PaymentsStandIn = {
    url: '',
    requests: [],
    down: false,
    paidJobs: new Set(),
    close: async () => undefined,
  };
  app.use(express.json());
  app.post(
    '/internal/checkout-sessions',
    requireServiceToken(SECRET, ['jobs']),
    async (req, res) => {
      state.requests.push({
        body: req.body,
        caller: (req as { callerService?: string }).callerService,
      });
      if (state.hold) await state.hold;
      if (state.down) {
        res.status(503).json({ detail: 'down', code: 'down' });
        return;
      }
      if (state.paidJobs.has(String(req.body?.job_id))) {
        res.status(409).json({ detail: 'This job is already paid.', code: 'already_paid' });
        return;
      }
      const sid = `cs_test_${randomUUID().slice(0, 8)}`;
      res
        .status(201)
        .json({ checkout_url: `/api/payments/local/checkout/${sid}`, session_id: sid });
    },
  );
  app.use(
    (err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      const e = err as { status?: number; detail?: string };
      res.status(e.status ?? 500).json({ detail: e.detail ?? 'error' });
    },
  );
  const server: RunningServer = await listen(app, 0);
  state.url = server.url;
  state.close = () => server.close();
  return state;
}

export interface Harness {
  svc: JobsService;
  db: TestDatabase;
  issuer: TestIssuer;
  payments: PaymentsStandIn;
  prefix: string;
  env: Record<string, string>;
  uploadDir: string;
  close(): Promise<void>;
}

export async function startHarness(
  label: string,
  extraEnv: Record<string, string> = {},
  opts: { withWorker?: boolean; pglite?: boolean } = {},
): Promise<Harness> {
  const db = await createTestDatabase(`jobs_${label}`);
  const issuer = await createTestIssuer();
  const payments = await startPaymentsStandIn();
  const prefix = testRedisPrefix(`jobs-${label}`);
  const uploadDir = mkdtempSync(path.join(tmpdir(), `jobs-${label}-`));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    IDENTITY_URL: issuer.url,
    PAYMENTS_URL: payments.url,
    SERVICE_TOKEN_SECRET: SECRET,
    UPLOAD_DIR: uploadDir,
    // Reports reach their poster unchecked unless a test turns the checks on (SESSION_CHECKS=on);
    // then they run when it asks (svc.sessionChecks.checkDue()), not on their own poll.
    SESSION_CHECKS: 'off',
    SESSION_CHECK_POLL_MS: '3600000',
    ...extraEnv,
  };
  if (opts.pglite) {
    delete env.DATABASE_URL;
    env.DATA_DIR = 'memory://';
  }
  const svc = await startJobs(env, { port: 0, withWorker: opts.withWorker });
  return {
    svc,
    db,
    issuer,
    payments,
    prefix,
    env,
    uploadDir,
    async close() {
      await svc.stop();
      await payments.close();
      await issuer.close();
      await db.drop();
    },
  };
}

import { waitFor } from '@htm/service-kit/testing';

export { waitFor };

/**
 * The body `api()` is typed as unless the caller names another: every field a jobs answer can
 * carry (a job or a page of jobs, a checkout, a submission with its job, a review outcome, the
 * error shape, and the bare submission of GET /api/jobs/:id/submission), typed as the service
 * sends it. Nothing is checked at run time: a test reads the fields of the route it calls.
 */
export interface JobsAnswer extends SubmissionView {
  job: JobView;
  jobs: JobView[];
  next_cursor: string | null;
  max_active_claims: number;
  submission: SubmissionView;
  checkout_url: string | null;
  session_id: string | null;
  payment_error?: string;
  payment_processed: boolean;
  revision_count: number;
  /** GET /api/tester/my-jobs: RECORDING_MAX_MS / RECORDING_MAX_BYTES for the web app's recorder. */
  recording_limits: { max_ms: number; max_bytes: number };
  detail: string;
  code: string;
  errors: Record<string, string[]>;
}

/** A submission as the tester who made it sees it (unlocked): its file and preview links are there. */
export type OwnSubmission = SubmissionView & {
  file_urls: string[];
  human_preview: { small_image_url: string };
};

export interface ApiAnswer<T = JobsAnswer> {
  status: number;
  body: T;
  headers: Headers;
}

export async function api<T = JobsAnswer>(
  h: Harness,
  method: string,
  p: string,
  token?: string,
  body?: unknown,
): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: RequestInit['body'];
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${h.svc.url}${p}`, { method, headers, body: payload });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export async function publish<T extends EventType>(
  h: Harness,
  type: T,
  subject: string,
  data: EventData<T>,
  id?: string,
) {
  const e = createEvent(type, subject, data, { id });
  await h.svc.ctx.bus.publish([e]);
  return e;
}

export async function handled(h: Harness, eventId: string): Promise<boolean> {
  const rows = await h.svc.ctx.dbHandle.query(
    'SELECT 1 FROM jobs.handled_events WHERE event_id = $1',
    [eventId],
  );
  return rows.length > 0;
}

/** site-check's SiteCheckFailed for a job (the health check could not run), once jobs handled it. */
export async function siteCheckFailed(h: Harness, jobId: string): Promise<void> {
  const e = await publish(h, 'SiteCheckFailed', jobId, {
    jobId,
    failedAt: new Date().toISOString(),
    reason: 'unreachable',
    detail: 'connection refused',
  });
  await waitFor(() => handled(h, e.id), 'SiteCheckFailed handled');
}

export interface Person {
  id: string;
  token: string;
  email: string;
  name: string;
}

export async function poster(h: Harness, name = 'Pat Poster'): Promise<Person> {
  const id = randomUUID();
  const email = `poster-${id.slice(0, 6)}@gmail.com`;
  return { id, email, name, token: await h.issuer.mint({ id, type: 'poster', email, name }) };
}

export async function admin(h: Harness): Promise<Person> {
  const id = randomUUID();
  return {
    id,
    email: 'admin@gmail.com',
    name: 'Admin',
    token: await h.issuer.mint({
      id,
      type: 'admin',
      email: 'admin@gmail.com',
      name: 'Admin',
      approved: false,
    }),
  };
}

/** A tester known to the projection (UserRoleChosen published on the bus and handled). */
export async function tester(
  h: Harness,
  opts: { country?: 'US' | 'PR' | 'CA'; approved?: boolean; name?: string } = {},
): Promise<Person> {
  const id = randomUUID();
  const email = `tester-${id.slice(0, 6)}@gmail.com`;
  const name = opts.name ?? 'Tess Tester';
  const country = opts.country ?? 'US';
  const approved = opts.approved ?? true;
  const e = await publish(h, 'UserRoleChosen', id, {
    userId: id,
    email,
    name,
    type: 'tester',
    location: country === 'PR' ? 'PR' : 'USA',
    country,
    approved,
  });
  await waitFor(() => handled(h, e.id), 'UserRoleChosen handled');
  return {
    id,
    email,
    name,
    token: await h.issuer.mint({ id, type: 'tester', email, name, approved, country }),
  };
}

export const jobBody = (over: Record<string, unknown> = {}) => ({
  title: 'Check my signup page',
  url: 'https://example.com/signup',
  what_to_test: 'Try to sign up with a new account',
  requirements: ['Can you find the signup button?', 'Does the confirmation e-mail arrive?'],
  // Off here (the API's default is on) so one tester may take several of these jobs.
  fresh_eyes: false,
  ...over,
});

/** Publishes payments' JobPaid for a job of `p`; resolves once jobs handled it. */
async function markPaid(
  h: Harness,
  p: Person,
  jobId: string,
  sessionId?: string | null,
): Promise<void> {
  const e = await publish(h, 'JobPaid', jobId, {
    jobId,
    sessionId: sessionId ?? 'cs_x',
    posterId: p.id,
    amountCents: 100,
    paidAt: new Date().toISOString(),
  });
  await waitFor(() => handled(h, e.id), 'JobPaid handled');
}

/** Posts a job and publishes JobPaid for it; resolves once the job is paid. */
export async function paidJob(
  h: Harness,
  p: Person,
  over: Record<string, unknown> = {},
): Promise<JobView> {
  const r = await api(h, 'POST', '/api/jobs', p.token, jobBody(over));
  if (r.status !== 201) throw new Error(`post job: ${r.status} ${JSON.stringify(r.body)}`);
  await markPaid(h, p, r.body.job.id, r.body.session_id);
  return r.body.job;
}

/** Posts a pack of `testers` slots and pays every slot; resolves with the pack's id and its jobs. */
export async function paidPack(
  h: Harness,
  p: Person,
  testers: number,
  over: Record<string, unknown> = {},
): Promise<{ packId: string; jobs: JobView[] }> {
  const r = await api<JobsAnswer & { pack: { id: string }; jobs: JobView[] }>(
    h,
    'POST',
    '/api/jobs',
    p.token,
    jobBody({ ...over, testers }),
  );
  if (r.status !== 201) throw new Error(`post pack: ${r.status} ${JSON.stringify(r.body)}`);
  for (const j of r.body.jobs) await markPaid(h, p, j.id, r.body.session_id);
  return { packId: r.body.pack.id, jobs: r.body.jobs };
}

/**
 * A VP8 WebM of ffmpeg's test pattern (no sound), written as a live stream, as MediaRecorder
 * writes it: no duration and no cues until the service remuxes it.
 */
export function testPatternWebm(seconds: number, rate = 10): Buffer {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'webm-fixture-')), 'clip.webm');
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${seconds}:size=160x120:rate=${rate}`,
    '-c:v',
    'libvpx',
    '-b:v',
    '200k',
    '-live',
    '1',
    file,
  ]);
  return readFileSync(file);
}

export async function outboxEvents<T extends EventType>(
  h: Harness,
  type: T,
  subject?: string,
): Promise<Array<EventEnvelope<T>>> {
  const rows = await h.svc.ctx.dbHandle.query<{ envelope: EventEnvelope<T> }>(
    `SELECT envelope FROM jobs.outbox WHERE type = $1 ${subject ? 'AND subject = $2' : ''} ORDER BY seq`,
    subject ? [type, subject] : [type],
  );
  return rows.map((r) => r.envelope);
}

/** A tus 1.0 request as the web app's recorder sends it. */
export const tusRequest = (
  h: Harness,
  method: string,
  p: string,
  token: string,
  headers: Record<string, string>,
  body?: Buffer,
) =>
  fetch(`${h.svc.url}${p}`, {
    method,
    headers: {
      'Tus-Resumable': '1.0.0',
      authorization: `Bearer ${token}`,
      ...(body ? { 'Content-Type': 'application/offset+octet-stream' } : {}),
      ...headers,
    },
    body: body ? new Uint8Array(body) : undefined,
  });

/** Uploads a whole WebM recording of a job in one PATCH; returns its id (its remux runs on). */
export async function uploadRecording(
  h: Harness,
  jobId: string,
  token: string,
  data: Buffer,
): Promise<string> {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const c = await tusRequest(h, 'POST', '/api/recordings', token, {
    'Upload-Metadata': `job_id ${b64(jobId)},filetype ${b64('video/webm')}`,
    'Upload-Length': String(data.length),
  });
  if (c.status !== 201) throw new Error(`tus creation ${c.status}`);
  const loc = c.headers.get('location')!;
  const patch = await tusRequest(h, 'PATCH', loc, token, { 'Upload-Offset': '0' }, data);
  if (patch.status !== 204) throw new Error(`tus PATCH ${patch.status}`);
  return loc.split('/').pop()!;
}
