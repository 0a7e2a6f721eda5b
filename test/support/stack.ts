/**
 * The whole marketplace in this process for cross-service tests and benchmarks: identity,
 * payments, jobs (+ timer worker), admin, notifications, analytics, site-check (no browser unless
 * SITE_CHECK_CHROMIUM_PATH is given) and the gateway, over real HTTP, against one real
 * Postgres database (each service in its own schema) and real Redis under a unique prefix.
 * `pglite: true`: `npm start`'s embedded databases instead, one PGlite per service under a fresh
 * DATA_DIR (a service started again on the same env reopens its files).
 */
import type {
  AppealView,
  CheckoutStatusResponse,
  JobView,
  PackCluster,
  PackSummary,
  PayoutRunResponse,
  SubmissionView,
} from '@htm/contracts';
import {
  createTestDatabase,
  testRedisPrefix,
  waitFor,
  TEST_REDIS_URL,
  type TestDatabase,
} from '@htm/service-kit/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, type DbHandle } from '@htm/service-kit';
import { startIdentity } from '@htm/identity';
import { signIn as devSignIn, CookieJar } from '@htm/identity/testing';
import { startPayments } from '@htm/payments';
import { startJobs } from '@htm/jobs';
import { startAdmin } from '@htm/admin';
import { startNotifications } from '@htm/notifications';
import { startAnalytics } from '@htm/analytics';
import { startSiteCheck } from '@htm/site-check';
import { startGateway, type RunningGateway } from '@htm/gateway';

export { CookieJar };

type Service = { url: string; stop(): Promise<void> };

export interface Stack {
  url: string;
  gateway: RunningGateway;
  identity: Awaited<ReturnType<typeof startIdentity>>;
  payments: Awaited<ReturnType<typeof startPayments>>;
  jobs: Awaited<ReturnType<typeof startJobs>>;
  admin: Awaited<ReturnType<typeof startAdmin>>;
  notifications: Awaited<ReturnType<typeof startNotifications>>;
  analytics: Awaited<ReturnType<typeof startAnalytics>>;
  siteCheck: Awaited<ReturnType<typeof startSiteCheck>>;
  /** The test database; on PGlite its DATA_DIR (url, name) and `drop` removes it. */
  db: TestDatabase;
  prefix: string;
  env: Record<string, string>;
  /**
   * Runs SQL against the shared test database (any service's schema); on PGlite, against the
   * database of the service whose schema the text names first (jobs when it names none).
   */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

/** The processes of a stack, for settings of their own (envOf). */
export type StackService =
  | 'identity'
  | 'payments'
  | 'jobs'
  | 'admin'
  | 'notifications'
  | 'analytics'
  | 'site-check'
  | 'gateway';

export interface StackOptions {
  env?: Record<string, string>;
  /** Settings of one service over `env` (each its own Redis user, for instance). */
  envOf?: (service: StackService) => Record<string, string>;
  withWorker?: boolean;
  label?: string;
  /** `npm start`'s databases: PGlite per service under a fresh DATA_DIR, no DATABASE_URL. */
  pglite?: boolean;
}

/** DATA_DIR of a PGlite stack, standing in for the test database (drop removes it). */
function pgliteData(label: string): TestDatabase {
  const dir = mkdtempSync(path.join(tmpdir(), `htm-stack-${label}-`));
  return {
    url: `file://${dir}`,
    name: dir,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The handle of the service whose schema `text` names first (each service has its own PGlite). */
function handleFor(text: string, handles: Record<string, DbHandle>): DbHandle {
  const named = new RegExp(`\\b(${Object.keys(handles).join('|')})\\.`).exec(text)?.[1];
  return handles[named ?? 'jobs'];
}

/**
 * Stops the gateway first (the edge: no new requests), then every service at once. Each service's
 * stop waits for its consumers' blocking reads of the event streams (up to 500 ms) and its worker:
 * one after another that was 3-4 s of every file's teardown.
 */
async function stopAll(services: Service[], gateway?: Service): Promise<void> {
  await gateway?.stop().catch(() => undefined);
  await Promise.all(services.map((s) => s.stop().catch(() => undefined)));
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const db = opts.pglite
    ? pgliteData(opts.label ?? 'stack')
    : await createTestDatabase(opts.label ?? 'stack');
  const prefix = testRedisPrefix(opts.label ?? 'stack');
  const [
    identityPort,
    paymentsPort,
    jobsPort,
    adminPort,
    notificationsPort,
    analyticsPort,
    siteCheckPort,
  ] = await Promise.all(Array.from({ length: 7 }, () => freePort()));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ...(opts.pglite ? {} : { DATABASE_URL: db.url }),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    ADMIN_EMAIL: 'admin@gmail.com',
    DEV_SIGN_IN: 'true',
    PAYMENTS_PROVIDER: 'local',
    TRUST_PROXY: 'true',
    IDENTITY_URL: `http://127.0.0.1:${identityPort}`,
    PAYMENTS_URL: `http://127.0.0.1:${paymentsPort}`,
    JOBS_URL: `http://127.0.0.1:${jobsPort}`,
    ADMIN_URL: `http://127.0.0.1:${adminPort}`,
    NOTIFICATIONS_URL: `http://127.0.0.1:${notificationsPort}`,
    ANALYTICS_URL: `http://127.0.0.1:${analyticsPort}`,
    SITE_CHECK_URL: `http://127.0.0.1:${siteCheckPort}`,
    // No browser unless a test asks for one: paid jobs' checks end `unavailable` at once (CI time).
    SITE_CHECK_CHROMIUM_PATH: '/nonexistent/chromium',
    AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    FORM_RATE_LIMIT_PER_MINUTE: '100000',
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    DATA_DIR: opts.pglite ? db.name : `/tmp/htm-stack-${prefix.replace(/[^a-z0-9]/gi, '')}`,
    // Reports reach their poster unchecked (#52's checks hold a report until they pass, and would
    // judge other flows' reused texts as copies): a test about the checks turns them on
    // (SESSION_CHECKS=on) and runs them itself (jobs.sessionChecks.checkDue()).
    SESSION_CHECKS: 'off',
    SESSION_CHECK_POLL_MS: '3600000',
    ...opts.env,
  };
  const started: Service[] = [];
  let edge: Service | undefined;
  const envFor = (service: StackService) => ({ ...env, ...opts.envOf?.(service) });
  try {
    const [identity, payments, jobs, admin, notifications, analytics, siteCheck] =
      await Promise.all([
        startIdentity(envFor('identity'), { port: identityPort }).then((s) => (started.push(s), s)),
        startPayments(envFor('payments'), { port: paymentsPort }).then((s) => (started.push(s), s)),
        startJobs(envFor('jobs'), { port: jobsPort, withWorker: opts.withWorker ?? true }).then(
          (s) => (started.push(s), s),
        ),
        startAdmin(envFor('admin'), { port: adminPort }).then((s) => (started.push(s), s)),
        // No SMTP_URL: e-mails go to .eml files under DATA_DIR/mail and GET /api/dev/mail.
        startNotifications(envFor('notifications'), { port: notificationsPort }).then(
          (s) => (started.push(s), s),
        ),
        startAnalytics(envFor('analytics'), { port: analyticsPort }).then(
          (s) => (started.push(s), s),
        ),
        startSiteCheck(envFor('site-check'), { port: siteCheckPort }).then(
          (s) => (started.push(s), s),
        ),
      ]);
    // The gateway is the edge: it believes no X-Forwarded-For unless a test says otherwise.
    const gateway = await startGateway(
      {
        ...envFor('gateway'),
        TRUST_PROXY: opts.env?.GATEWAY_TRUST_PROXY ?? 'false',
        WEB_DIST: '/nonexistent',
      },
      { port: 0, host: '127.0.0.1', metricsPort: 0 },
    );
    edge = gateway;
    return {
      url: gateway.url,
      gateway,
      identity,
      payments,
      jobs,
      admin,
      notifications,
      analytics,
      siteCheck,
      db,
      prefix,
      env,
      sql: opts.pglite
        ? (text, params) =>
            handleFor(text, {
              identity: identity.ctx.dbHandle,
              payments: payments.ctx.dbHandle,
              jobs: jobs.ctx.dbHandle,
              admin: admin.ctx.dbHandle,
              notifications: notifications.ctx.dbHandle,
              analytics: analytics.ctx.dbHandle,
              site_check: siteCheck.ctx.dbHandle,
            }).query(text, params)
        : (text, params) => jobs.ctx.dbHandle.query(text, params),
      async stop() {
        await stopAll(started, edge);
        await db.drop().catch(() => undefined);
      },
    };
  } catch (err) {
    await stopAll(started, edge);
    await db.drop().catch(() => undefined);
    throw err;
  }
}

export { waitFor };

/**
 * The body `client()`'s answers are typed as: every field the tests read from an answer of a
 * service behind the gateway (a job or a page of jobs, a checkout, a submission, a review outcome,
 * payments' answers, an access token, the error shape), typed as the service sends it. Nothing is
 * checked at run time: a test reads the fields of the route it calls.
 */
export interface GatewayAnswer extends SubmissionView {
  access_token: string;
  job: JobView;
  jobs: JobView[];
  checkout_url: string | null;
  session_id: string | null;
  payment_processed: boolean;
  revision_count: number;
  payment_status: CheckoutStatusResponse['payment_status'];
  paid: PayoutRunResponse['paid'];
  outcome: string;
  /** POST /api/appeals, POST /api/admin/appeals/{id}/decision */
  appeal: AppealView;
  detail: string;
  code: string;
  errors?: Record<string, string[]>;
  /** POST /api/jobs: the pack ({id, size}) or null; GET /api/packs/{id}: its progress. */
  pack: Partial<PackSummary> & { id: string; size: number };
  clusters: PackCluster[];
}

/** A JSON client for the gateway with an optional bearer token. */
export function client(stack: Stack, token?: string) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${stack.url}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: res.status, body: json as GatewayAnswer, headers: res.headers };
  };
  return {
    get: (p: string, h?: Record<string, string>) => call('GET', p, undefined, h),
    post: (p: string, b?: unknown, h?: Record<string, string>) => call('POST', p, b ?? {}, h),
    patch: (p: string, b?: unknown, h?: Record<string, string>) => call('PATCH', p, b ?? {}, h),
    call,
  };
}

export interface Actor {
  id: string;
  email: string;
  token: string;
  jar: CookieJar;
}

async function me(stack: Stack, token: string): Promise<{ id: string }> {
  const r = await client(stack, token).get('/api/me');
  if (r.status !== 200) throw new Error(`GET /api/me answered ${r.status}`);
  return r.body as { id: string };
}

/** Signs in through the gateway with the development sign-in. */
export async function signIn(
  stack: Stack,
  email: string,
  intent?: 'poster' | 'tester',
): Promise<Actor> {
  const { token, jar } = await devSignIn(stack.url, email, { intent, name: email.split('@')[0] });
  return { id: (await me(stack, token)).id, email, token, jar };
}

/**
 * A fresh access token of the sign-in whose cookies `jar` holds, as the web app gets one when its token expires
 * (POST /api/auth/refresh with the refresh cookie and the XSRF header); the jar takes the rotated
 * refresh cookie. Throws unless the refresh is answered 200.
 */
export async function refreshAccess(stack: Pick<Stack, 'url'>, jar: CookieJar): Promise<string> {
  const res = await fetch(`${stack.url}/api/auth/refresh`, {
    method: 'POST',
    headers: { cookie: jar.header(), 'x-xsrf-token': jar.get('XSRF-TOKEN') ?? '' },
  });
  jar.take(res);
  const body = (await res.json().catch(() => ({}))) as { access_token?: string };
  if (res.status !== 200 || !body.access_token)
    throw new Error(`POST /api/auth/refresh answered ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

export async function signInPoster(stack: Stack, email: string): Promise<Actor> {
  const a = await signIn(stack, email);
  const r = await client(stack, a.token).post('/api/users/init', {
    type: 'poster',
    location: 'USA',
  });
  if (r.status !== 200 && r.status !== 201)
    throw new Error(`users/init answered ${r.status} ${JSON.stringify(r.body)}`);
  return { ...a, token: r.body.access_token };
}

export async function signInAdmin(stack: Stack): Promise<Actor> {
  return signIn(stack, 'admin@gmail.com');
}

/** A tester who chose their role and (unless approved=false) was approved by the admin; waits until jobs knows. */
export async function signInTester(
  stack: Stack,
  email: string,
  opts: { country?: 'US' | 'PR' | 'CA'; approved?: boolean; admin?: Actor } = {},
): Promise<Actor> {
  const a = await signIn(stack, email);
  const init = await client(stack, a.token).post('/api/users/init', {
    type: 'tester',
    location: 'USA',
    country: opts.country ?? 'US',
  });
  if (init.status !== 200 && init.status !== 201)
    throw new Error(`users/init answered ${init.status} ${JSON.stringify(init.body)}`);
  let token = init.body.access_token as string;
  let jar = a.jar;
  if (opts.approved !== false) {
    const admin = opts.admin ?? (await signInAdmin(stack));
    const r = await client(stack, admin.token).patch(`/api/admin/approve-tester/${a.id}`, {
      approved: true,
    });
    if (r.status !== 200) throw new Error(`approve-tester answered ${r.status}`);
    // A stack started by the tests reads jobs' projection; a product started with npm start (no
    // database handle here) is asked through the API whether jobs lets the tester see jobs.
    const hasSql = typeof (stack as Partial<Stack>).sql === 'function';
    if (hasSql)
      await waitFor(
        async () =>
          (
            await stack
              .sql<{ approved: boolean }>('SELECT approved FROM jobs.users WHERE id = $1', [a.id])
              .catch(() => [])
          )[0]?.approved,
        'jobs to learn the approval',
      );
    // The approval made the earlier tokens stale (they carry the old approval): sign in at the tester login.
    // Same name as before: Google sends the account's name every time (a new one is a rename, UserRenamed).
    ({ token, jar } = await devSignIn(stack.url, email, {
      intent: 'tester',
      name: email.split('@')[0],
    }));
    if (!hasSql) {
      const fresh = token;
      await waitFor(
        async () => (await client(stack, fresh).get('/api/tester/available-jobs')).status === 200,
        'jobs to let the approved tester see jobs',
      );
    }
  }
  return { ...a, token, jar };
}

/**
 * A job body. Fresh eyes is off here (the API's default is on) so one tester may test several of
 * these jobs of the same poster; fresh-eyes tests ask for it explicitly.
 */
export const JOB = {
  title: 'Check my bakery site',
  url: 'https://bakery.example',
  what_to_test: 'Can a first-time visitor order a cake?',
  requirements: ['Find the order button', 'Say if prices are clear'],
  geo_rule: 'us_pr_ca',
  fresh_eyes: false,
};

/** The tester's Quick report (feedback and one key finding, no screenshot); the answer's status. */
export async function submitQuickReport(
  stack: Pick<Stack, 'url'>,
  tester: Actor,
  jobId: string,
): Promise<number> {
  const form = new FormData();
  form.set('feedback_text', 'The cake order flow works but the button is hard to find.');
  form.set('key_finding_1', 'Order button is below the fold');
  const res = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tester.token}` },
    body: form,
  });
  return res.status;
}

/** Posts a job as the poster and pays through the local checkout (as a browser would). */
export async function postAndPay(
  stack: Stack,
  poster: Actor,
  job: Record<string, unknown> = JOB,
): Promise<{ jobId: string; sessionId: string }> {
  const posted = await client(stack, poster.token).post('/api/jobs', job);
  if (posted.status !== 201)
    throw new Error(`POST /api/jobs answered ${posted.status} ${JSON.stringify(posted.body)}`);
  const { checkout_url, session_id, job: created } = posted.body;
  const pay = await fetch(`${stack.url}${checkout_url}/pay`, {
    method: 'POST',
    redirect: 'manual',
  });
  if (pay.status !== 303) throw new Error(`pay answered ${pay.status}`);
  await waitFor(
    async () =>
      (await client(stack, poster.token).get('/api/jobs')).body.jobs?.find(
        (j: { id: string }) => j.id === created.id,
      )?.payment_status === 'paid',
    'the job to be paid',
  );
  return { jobId: created.id, sessionId: session_id! };
}
