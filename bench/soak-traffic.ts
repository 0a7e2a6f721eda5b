/**
 * The traffic of bench/soak.ts, in its own process: CLIENTS pairs (a poster and an approved
 * tester each) going round the whole job cycle through the cluster's gateway until told to stop,
 * as people would (a short pause before each call):
 *
 *   dev sign-in of the tester -> post a job -> pay on the local checkout -> wait until paid ->
 *   claim -> upload a screen recording (tus: create + two PATCHes) -> submit the work with a
 *   screenshot and the recording -> the poster accepts (a review), or every third cycle the
 *   auto-accept timer does -> earnings
 *
 * while each poster and tester holds a live stream (reopened with a new ticket when it ends).
 * Every ROTATE rounds a pair is replaced by a new poster and a newly approved tester (people come
 * and go; nobody's own job list grows for the whole run).
 * Every call is timed; every WINDOW_MS the parent gets, per route, the latencies of that window,
 * the failed calls (any answer the step did not expect), finished cycles and live messages.
 *
 * Env: URL, DATABASE_URL, CLIENTS, WINDOW_MS, SCREENSHOT (PNG path), RECORDING (WebM path).
 * Parent -> child: {type:'stop'}; child -> parent: {type:'ready'}, {type:'window', ...}, {type:'done'}.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  refreshAccess,
  signIn,
  signInAdmin,
  signInPoster,
  signInTester,
  type Actor,
  type Stack,
} from '../test/support/stack.js';
import { openSse, type SseStream } from '../test/support/sse.js';

const URL_ = process.env.URL!;
const CLIENTS = Number(process.env.CLIENTS ?? 6);
const WINDOW_MS = Number(process.env.WINDOW_MS ?? 10_000);
const THINK_MS = 200;
/** Rounds a poster and tester pair does before new people take its place. */
const ROTATE = 10;
const screenshot = readFileSync(process.env.SCREENSHOT!);
const recording = readFileSync(process.env.RECORDING!);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
const stack = {
  url: URL_,
  sql: async (text: string, params?: unknown[]) => (await pool.query(text, params)).rows,
} as unknown as Stack;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const b64 = (s: string) => Buffer.from(s).toString('base64');

let running = true;
let window: {
  latencies: Record<string, number[]>;
  failures: string[];
  cycles: number;
  auto: number;
  live: number;
  liveOpens: number;
} = fresh();
function fresh() {
  return { latencies: {}, failures: [], cycles: 0, auto: 0, live: 0, liveOpens: 0 };
}
const route = (method: string, path: string) =>
  `${method} ${path
    .split('?')[0]
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')
    .replace(/^\/api\/recordings\/[A-Za-z0-9_-]+$/, '/api/recordings/:id')
    .replace(/\/cs_local_[A-Za-z0-9_]+/, '/:session')}`;

/** Refreshes in progress, one per actor (its live stream and its job cycle may both find the token expired). */
const refreshing = new WeakMap<Actor, Promise<void>>();

/**
 * An access token lives 15 minutes: as the web app does, a call answered 401 `token_expired`
 * refreshes the actor's token (its refresh cookie) once and is sent again; counted as a route of
 * its own, not as a failure.
 */
function renew(actor: Actor): Promise<void> {
  let p = refreshing.get(actor);
  if (!p) {
    const t0 = performance.now();
    p = refreshAccess(stack, actor.jar)
      .then((token) => {
        actor.token = token;
        (window.latencies['POST /api/auth/refresh'] ??= []).push(performance.now() - t0);
      })
      .finally(() => refreshing.delete(actor));
    refreshing.set(actor, p);
  }
  return p;
}

/** One timed call; undefined (and a failure recorded) unless the status is expected. */
async function call(
  actor: Actor | undefined,
  method: string,
  path: string,
  expect: number[],
  init: { json?: unknown; body?: RequestInit['body']; headers?: Record<string, string> } = {},
): Promise<{ body: Record<string, unknown>; headers: Headers } | undefined> {
  await sleep(THINK_MS);
  const sentWith = actor?.token;
  const t0 = performance.now();
  let status: number | string;
  let body: Record<string, unknown> | undefined;
  let headers: Headers | undefined;
  try {
    const res = await fetch(`${URL_}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(actor ? { authorization: `Bearer ${actor.token}` } : {}),
        ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(method === 'POST' && init.json !== undefined
          ? { 'idempotency-key': randomUUID() }
          : {}),
        ...init.headers,
      },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
    status = res.status;
    headers = res.headers;
    const text = await res.text();
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = {};
    }
  } catch (err) {
    status = `network error ${(err as Error).message}`;
  }
  const r = route(method, path);
  (window.latencies[r] ??= []).push(performance.now() - t0);
  if (actor && status === 401 && body?.code === 'token_expired' && running) {
    try {
      if (actor.token === sentWith) await renew(actor);
    } catch (err) {
      window.failures.push(`POST /api/auth/refresh -> ${(err as Error).message}`);
      return undefined;
    }
    return call(actor, method, path, expect, init);
  }
  if (typeof status !== 'number' || !expect.includes(status)) {
    window.failures.push(`${r} -> ${status} ${JSON.stringify(body ?? {}).slice(0, 200)}`);
    return undefined;
  }
  return { body: body ?? {}, headers: headers! };
}

/** A live stream held open for `actor` (reopened with a new ticket whenever it ends). */
async function holdLive(who: () => Actor): Promise<void> {
  while (running) {
    const t = await call(who(), 'POST', '/api/live/ticket', [200], { json: {} });
    if (!t) {
      await sleep(1000);
      continue;
    }
    let s: SseStream;
    try {
      s = await openSse(`${URL_}/api/live?ticket=${t.body.ticket as string}`);
    } catch {
      window.failures.push('GET /api/live -> network error');
      await sleep(1000);
      continue;
    }
    if (s.status !== 200) {
      window.failures.push(`GET /api/live -> ${s.status}`);
      await sleep(1000);
      continue;
    }
    window.liveOpens++;
    let seen = 0;
    const count = setInterval(() => {
      window.live += s.messages.length - seen;
      seen = s.messages.length;
    }, 1000);
    const stop = new Promise<void>((r) => {
      const i = setInterval(() => !running && (clearInterval(i), r()), 500);
    });
    await Promise.race([s.ended, stop]);
    clearInterval(count);
    window.live += s.messages.length - seen;
    s.close();
  }
}

async function cycle(
  n: number,
  round: number,
  poster: Actor,
  tester: Actor,
  refresh: (a: Actor) => void,
): Promise<void> {
  // A sign-in, as a tester coming back (the dev sign-in: identity, sessions, tokens).
  const t0 = performance.now();
  try {
    refresh(await signIn(stack, tester.email, 'tester'));
    (window.latencies['dev sign-in (GET /auth/dev + /api/me)'] ??= []).push(performance.now() - t0);
  } catch (err) {
    window.failures.push(`dev sign-in -> ${(err as Error).message}`);
  }
  const posted = await call(poster, 'POST', '/api/jobs', [201], {
    json: {
      title: `Soak job ${n}.${round}`,
      url: 'https://bakery.example',
      what_to_test: 'Can a first-time visitor order a cake?',
      requirements: ['Find the order button'],
      geo_rule: 'us_pr_ca',
      fresh_eyes: false,
    },
  });
  if (!posted?.body.checkout_url) return;
  const jobId = (posted.body.job as { id: string }).id;
  if (!(await call(undefined, 'POST', `${posted.body.checkout_url as string}/pay`, [303]))) return;
  let paid = false;
  for (let i = 0; i < 300 && running; i++) {
    const mine = await call(poster, 'GET', '/api/jobs', [200]);
    if (
      (mine?.body.jobs as Array<{ id: string; payment_status: string }> | undefined)?.some(
        (j) => j.id === jobId && j.payment_status === 'paid',
      )
    ) {
      paid = true;
      break;
    }
  }
  if (!paid) {
    if (running) window.failures.push(`job ${jobId} not shown as paid within 300 polls`);
    return;
  }
  if (!(await call(tester, 'POST', `/api/jobs/${jobId}/claim`, [200], { json: {} }))) return;
  // The screen recording, over tus in two PATCHes.
  const tus = { 'Tus-Resumable': '1.0.0' };
  const created = await call(tester, 'POST', '/api/recordings', [201], {
    headers: {
      ...tus,
      'Upload-Length': String(recording.length),
      'Upload-Metadata': `job_id ${b64(jobId)},filetype ${b64('video/webm')}`,
    },
  });
  if (!created) return;
  const loc = created.headers.get('location')!;
  const half = Math.floor(recording.length / 2);
  const octet = { ...tus, 'Content-Type': 'application/offset+octet-stream' };
  if (
    !(await call(tester, 'PATCH', loc, [204], {
      headers: { ...octet, 'Upload-Offset': '0' },
      body: new Uint8Array(recording.subarray(0, half)),
    }))
  )
    return;
  if (
    !(await call(tester, 'PATCH', loc, [204], {
      headers: { ...octet, 'Upload-Offset': String(half) },
      body: new Uint8Array(recording.subarray(half)),
    }))
  )
    return;
  const form = new FormData();
  form.set('feedback_text', `Round ${round}: the order button works and prices are clear.`);
  form.set('key_finding_1', 'Order button is easy to find');
  form.set('recording_id', loc.split('/').pop()!);
  form.set(
    'screenshot',
    new Blob([new Uint8Array(screenshot)], { type: 'image/png' }),
    'screen.png',
  );
  if (!(await call(tester, 'POST', `/api/jobs/${jobId}/submit-work`, [201], { body: form })))
    return;
  if (round % 3 === 0) {
    // Left to the auto-accept timer (AUTO_ACCEPT_AFTER_MS): wait until the job is completed.
    for (let i = 0; i < 600 && running; i++) {
      const mine = await call(poster, 'GET', '/api/jobs', [200]);
      if (
        (mine?.body.jobs as Array<{ id: string; status: string }> | undefined)?.some(
          (j) => j.id === jobId && j.status === 'completed',
        )
      ) {
        window.auto++;
        break;
      }
    }
  } else if (
    !(await call(poster, 'POST', `/api/jobs/${jobId}/review`, [200], {
      json: { decision: 'accept' },
    }))
  )
    return;
  await call(tester, 'GET', '/api/tester/my-earnings', [200]);
  window.cycles++;
}

async function main(): Promise<void> {
  const first = await signInAdmin(stack);
  const run = `${Date.now()}`;
  const pairs: Array<{ poster: Actor; tester: Actor }> = [];
  for (let i = 0; i < CLIENTS; i++) {
    pairs.push({
      poster: await signInPoster(stack, `soak.poster${i}.${run}@gmail.com`),
      tester: await signInTester(stack, `soak.tester${i}.${run}@gmail.com`, { admin: first }),
    });
  }
  process.send!({ type: 'ready' });
  const flush = setInterval(() => {
    process.send!({ type: 'window', at: Date.now(), ...window });
    window = fresh();
  }, WINDOW_MS);
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stop') running = false;
  });
  const loops = pairs.map(async (p, n) => {
    const live = [holdLive(() => p.poster), holdLive(() => p.tester)];
    for (let round = 1; running; round++) {
      await cycle(n + 1, round, p.poster, p.tester, (a) => (p.tester = a));
      // New people keep arriving: every ROTATE rounds the pair is a new site owner and a newly
      // approved tester, so no one's own lists (jobs, earnings) grow for the whole run.
      if (round % ROTATE === 0 && running) {
        const t0 = performance.now();
        try {
          const admin = await signInAdmin(stack); // the admin approves; a fresh token each time
          const id = `${run}.${n}.${round}`;
          p.poster = await signInPoster(stack, `soak.poster${id}@gmail.com`);
          p.tester = await signInTester(stack, `soak.tester${id}@gmail.com`, { admin });
          (window.latencies['new poster and approved tester (sign-ins + approval)'] ??= []).push(
            performance.now() - t0,
          );
        } catch (err) {
          window.failures.push(`new poster and tester -> ${(err as Error).message}`);
        }
      }
    }
    await Promise.all(live);
  });
  await Promise.all(loops);
  clearInterval(flush);
  process.send!({ type: 'window', at: Date.now(), ...window });
  process.send!({ type: 'done' });
  await pool.end();
  process.exit(0);
}

await main();
