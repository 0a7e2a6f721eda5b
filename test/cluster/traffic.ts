/**
 * Steady traffic for the cluster tests: N clients, each a tester with its own poster, going round
 * the whole job cycle through the gateway (post, pay on the local checkout, wait until paid,
 * claim, submit, accept — or leave the acceptance to the auto-accept timer) until told to stop.
 * Every HTTP call is recorded with when it started and ended and what it answered.
 */
import { randomUUID } from 'node:crypto';
import { client, type Actor, type Stack } from '../support/stack.js';

export interface Call {
  client: number;
  method: string;
  path: string;
  status: number | 'network error';
  detail?: string;
  startedAt: number;
  endedAt: number;
}

export interface Cycle {
  jobId: string;
  sessionId: string;
  /** accepted by the poster, left to the auto-accept timer, or the poster's accept found it completed (409) */
  acceptance: 'poster' | 'auto' | 'completed already';
}

export interface TrafficResult {
  calls: Call[];
  /**
   * Attempts that got no answer at all (the connection closed under them: a gateway stopping) and
   * that the client sent again at once, as a browser does, with the same Idempotency-Key on a
   * POST (only with `retryDropped`). Not failures unless the second attempt failed too.
   */
  retried: Call[];
  /** Cycles that reached their end (submitted and, for 'poster', accepted). */
  cycles: Cycle[];
  /** Calls that did not get the answer the cycle expected (5xx, network errors, wrong status). */
  failures: Call[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How many times a request that got no answer (connection closed) is sent again with `retryDropped`. */
const DROPPED_RESENDS = 3;

const active = new Set<() => void>();
/** Stops every traffic still running (afterAll: a test that timed out never called stop()). */
export function haltAllTraffic(): void {
  for (const halt of active) halt();
  active.clear();
}

/**
 * Starts the clients; `stop()` lets each finish the cycle it is in and
 * resolves with everything recorded.
 */
export function startTraffic(
  stack: Stack,
  pairs: Array<{ poster: Actor; tester: Actor }>,
  opts: {
    /** Cycles whose acceptance is left to the auto-accept timer. */
    leaveToTimer?: (client: number, round: number) => boolean;
    /** Pause before each call, as a person clicking (ms). */
    thinkMs?: number;
    /** Send an attempt that got no answer (connection closed) once more at once, same Idempotency-Key. */
    retryDropped?: boolean;
  } = {},
) {
  const calls: Call[] = [];
  const failures: Call[] = [];
  const retried: Call[] = [];
  const cycles: Cycle[] = [];
  let running = true;

  const call = async (
    n: number,
    actor: Actor | undefined,
    method: string,
    path: string,
    expect: number[],
    body?: unknown,
    form?: FormData,
  ) => {
    await sleep(opts.thinkMs ?? 100);
    // Like the web app: one Idempotency-Key per user attempt of a POST, so a retry can never do it twice.
    const key: Record<string, string> =
      method === 'POST' ? { 'idempotency-key': randomUUID() } : {};
    let startedAt = Date.now();
    let status: Call['status'] = 'network error';
    let json: Record<string, unknown> | undefined;
    let detail: string | undefined;
    let resent = 0;
    for (let attempt = 0, resends = 0; attempt <= resends; attempt++) {
      startedAt = Date.now();
      json = undefined;
      detail = undefined;
      try {
        if (form) {
          const res = await fetch(`${stack.url}${path}`, {
            method,
            headers: { authorization: `Bearer ${actor!.token}`, ...key },
            body: form,
          });
          status = res.status;
          json = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
        } else if (!actor) {
          const res = await fetch(`${stack.url}${path}`, {
            method,
            redirect: 'manual',
            headers: key,
          });
          await res.arrayBuffer();
          status = res.status;
        } else {
          const r = await client(stack, actor.token).call(method, path, body, key);
          status = r.status;
          json = r.body as unknown as Record<string, unknown>;
        }
        if (!expect.includes(status) || status === 409)
          detail = JSON.stringify(json)?.slice(0, 300);
        // The resent request found the first still running (409 idempotency_in_progress, Retry-After: 1): wait for its answer.
        if (
          resent > 0 &&
          status === 409 &&
          json?.code === 'idempotency_in_progress' &&
          resends < 10
        ) {
          resends++;
          await sleep(1000);
        }
      } catch (err) {
        status = 'network error';
        const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
        detail = `${(err as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`;
        // No answer at all: the connection closed under the request (another pooled connection to
        // the same stopping gateway may close too). Sent again, same key, up to DROPPED_RESENDS times.
        if (opts.retryDropped && resent < DROPPED_RESENDS) {
          retried.push({
            client: n,
            method,
            path: path.replace(/[0-9a-f-]{36}/g, ':id'),
            status,
            detail,
            startedAt,
            endedAt: Date.now(),
          });
          resent++;
          resends++;
        }
      }
    }
    const c: Call = {
      client: n,
      method,
      path: path.replace(/[0-9a-f-]{36}/g, ':id'),
      status,
      detail,
      startedAt,
      endedAt: Date.now(),
    };
    calls.push(c);
    // Sent again after a dropped connection: 409 says the first attempt took effect after all (a
    // review's or submission's state moved on; a repeated claim by its holder answers 200), as in step() below.
    if (resent > 0 && status === 409 && json?.code !== 'idempotency_in_progress') return json ?? {};
    if (status === 'network error' || !expect.includes(status)) {
      failures.push(c);
      return undefined;
    }
    return json ?? {};
  };

  /**
   * One step of the cycle as a user does it: on a failed answer, try again (up to 3 times). A
   * retry may find the first attempt took effect after all (its answer was lost): 409 then counts
   * as done. Every failed attempt stays recorded.
   */
  const step = async (
    n: number,
    actor: Actor | undefined,
    method: string,
    path: string,
    expect: number[],
    body?: () => unknown,
    form?: () => FormData,
  ) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (attempt) await sleep(300);
      const r = await call(
        n,
        actor,
        method,
        path,
        attempt ? [...expect, 409] : expect,
        body?.(),
        form?.(),
      );
      if (r) return r;
    }
    return undefined;
  };

  const runClient = async (n: number, poster: Actor, tester: Actor) => {
    for (let round = 1; running; round++) {
      const posted = await call(n, poster, 'POST', '/api/jobs', [201], {
        title: `Cluster job ${n}.${round}`,
        url: 'https://bakery.example',
        what_to_test: 'Can a first-time visitor order a cake?',
        requirements: ['Find the order button'],
        geo_rule: 'us_pr_ca',
        // Each client's tester tests the same poster's site round after round: a repeat job.
        fresh_eyes: false,
      });
      if (!posted) continue;
      if (!posted.checkout_url) {
        // Posted, but payments could not open a checkout session: the poster cannot pay.
        failures.push({ ...calls[calls.length - 1], detail: 'no checkout_url' });
        continue;
      }
      const jobId = (posted.job as { id: string }).id;
      const sessionId = posted.session_id as string;
      if (!(await step(n, undefined, 'POST', `${posted.checkout_url as string}/pay`, [303])))
        continue;
      let paid = false;
      for (let i = 0; i < 200 && running; i++) {
        const mine = await call(n, poster, 'GET', '/api/jobs', [200]);
        if (
          (mine?.jobs as Array<{ id: string; payment_status: string }> | undefined)?.some(
            (j) => j.id === jobId && j.payment_status === 'paid',
          )
        ) {
          paid = true;
          break;
        }
        await sleep(100);
      }
      if (!paid) continue;
      if (!(await step(n, tester, 'POST', `/api/jobs/${jobId}/claim`, [200]))) continue;
      const form = () => {
        const f = new FormData();
        f.set('feedback_text', `Round ${round}: the order button works and prices are clear.`);
        f.set('key_finding_1', 'Order button is easy to find');
        return f;
      };
      if (
        !(await step(n, tester, 'POST', `/api/jobs/${jobId}/submit-work`, [201], undefined, form))
      )
        continue;
      let acceptance: Cycle['acceptance'] = opts.leaveToTimer?.(n, round) ? 'auto' : 'poster';
      if (acceptance === 'poster') {
        // 409 job_completed: the auto-accept timer (short in these tests) came first.
        const review = await step(
          n,
          poster,
          'POST',
          `/api/jobs/${jobId}/review`,
          [200, 409],
          () => ({ decision: 'accept' }),
        );
        if (!review) continue;
        if (review.code === 'job_completed') acceptance = 'completed already';
      }
      await call(n, tester, 'GET', '/api/tester/my-earnings', [200]);
      cycles.push({ jobId, sessionId, acceptance });
    }
  };

  const all = Promise.all(pairs.map((p, i) => runClient(i + 1, p.poster, p.tester)));
  const halt = () => {
    running = false;
  };
  // Never outlive a test that timed out: the clients stop by themselves after 10 minutes.
  const guard = setTimeout(halt, 600_000);
  guard.unref();
  active.add(halt);
  return {
    calls,
    failures,
    cycles,
    async stop(): Promise<TrafficResult> {
      halt();
      clearTimeout(guard);
      active.delete(halt);
      await all;
      return { calls, cycles, failures, retried };
    },
  };
}

/**
 * The admin at work, for the rolling restart of the admin replicas and the gateways: `n` loops of
 * the Overview's reads (dead letters, waitlist, audit log) and a POST that writes (the clear-all
 * preview: admin asks jobs for the counts and stores a confirmation), each POST with its own
 * Idempotency-Key as the web app sends. Every call is recorded; any status but 200 is a failure.
 */
export function startAdminTraffic(
  stack: Stack,
  admin: Actor,
  n: number,
  opts: { thinkMs?: number; retryDropped?: boolean } = {},
) {
  const calls: Call[] = [];
  const failures: Call[] = [];
  const retried: Call[] = [];
  let running = true;
  const routes: Array<[method: string, path: string]> = [
    ['GET', '/api/admin/dead-letters'],
    ['GET', '/api/admin/waitlist?page=1'],
    ['GET', '/api/admin/audit'],
    ['POST', '/api/admin/clear-jobs/preview'],
  ];
  const loop = async (clientNo: number) => {
    for (let i = 0; running; i++) {
      await sleep(opts.thinkMs ?? 200);
      const [method, path] = routes[(i + clientNo) % routes.length];
      const key: Record<string, string> =
        method === 'POST' ? { 'idempotency-key': randomUUID() } : {};
      let startedAt = Date.now();
      let status: Call['status'] = 'network error';
      let detail: string | undefined;
      for (let attempt = 0; attempt < (opts.retryDropped ? 1 + DROPPED_RESENDS : 1); attempt++) {
        startedAt = Date.now();
        detail = undefined;
        try {
          const r = await client(stack, admin.token).call(
            method,
            path,
            method === 'POST' ? {} : undefined,
            key,
          );
          status = r.status;
          if (status !== 200) detail = JSON.stringify(r.body)?.slice(0, 300);
          break;
        } catch (err) {
          status = 'network error';
          const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
          detail = `${(err as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`;
          if (opts.retryDropped && attempt < DROPPED_RESENDS)
            retried.push({
              client: clientNo,
              method,
              path,
              status,
              detail,
              startedAt,
              endedAt: Date.now(),
            });
        }
      }
      const c: Call = {
        client: clientNo,
        method,
        path,
        status,
        detail,
        startedAt,
        endedAt: Date.now(),
      };
      calls.push(c);
      if (status !== 200) failures.push(c);
    }
  };
  const all = Promise.all(Array.from({ length: n }, (_, i) => loop(1000 + i)));
  const halt = () => {
    running = false;
  };
  const guard = setTimeout(halt, 600_000);
  guard.unref();
  active.add(halt);
  return {
    calls,
    async stop(): Promise<{ calls: Call[]; failures: Call[]; retried: Call[] }> {
      halt();
      clearTimeout(guard);
      active.delete(halt);
      await all;
      return { calls, failures, retried };
    },
  };
}
