/**
 * Redis users (issue #27 finding 1; issue #48 security 1): each service's user from
 * scripts/redis-acl.ts holds only its own keys and the commands it needs. The test runs its own
 * redis-server on a free port, loaded with the generated ACL file (never the shared Redis), and
 * checks, user by user, what each one is refused (a BullMQ timer, moving a consumer group,
 * deleting or trimming a stream, another service's stream, rate limits or dead letters, the
 * revoked sessions, anything outside the prefix, server administration) and what it may do; then
 * runs the whole marketplace with every service as its own user (sign-in, the live channel, post,
 * pay, claim, submit, accept and an auto-accept by the BullMQ timer, earnings, logout, a dead
 * letter replayed from the admin's Overview) and finds the server's ACL log empty: no service
 * needed anything it was refused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { createEvent, RedisStreamsBus, type EventEnvelope } from '@htm/events';
import { freePort } from '@htm/service-kit';
import { waitFor } from '@htm/service-kit/testing';
import {
  aclLines,
  REDIS_USERS,
  SERVICE_KEYS,
  STREAM_SOURCES,
  type RedisUser,
} from '../scripts/redis-acl.js';
import {
  client,
  JOB,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  submitQuickReport,
  type Stack,
} from './support/stack.js';
import { openSse } from './support/sse.js';

const prefix = 'acl:';
type Login = RedisUser | 'ops' | 'keda';
const passwords = Object.fromEntries(
  [...REDIS_USERS, 'ops', 'keda'].map((u) => [u, randomBytes(18).toString('base64url')]),
) as Record<Login, string>;
const dir = mkdtempSync(path.join(tmpdir(), 'htm-redis-acl-'));
let port = 0;
let server: ChildProcess | undefined;
const urlOf = (u: Login) => `redis://${u}:${passwords[u]}@127.0.0.1:${port}`;

const clients: Redis[] = [];
const as = (u: Login) => {
  const c = new Redis(urlOf(u), { maxRetriesPerRequest: 1, enableReadyCheck: u !== 'keda' });
  clients.push(c);
  return c;
};
let ops: Redis;

beforeAll(async () => {
  port = await freePort();
  writeFileSync(
    path.join(dir, 'users.acl'),
    `${aclLines(prefix, (u) => passwords[u], 'aclfile').join('\n')}\n`,
  );
  server = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
      ...['--aclfile', path.join(dir, 'users.acl'), '--save', '', '--appendonly', 'no'],
    ],
    { stdio: 'ignore' },
  );
  ops = new Redis({
    port,
    host: '127.0.0.1',
    username: 'ops',
    password: passwords.ops,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  await waitFor(
    async () =>
      (await ops.connect().then(
        () => ops.ping(),
        () => undefined,
      )) === 'PONG',
    'redis-server to load the users',
    10_000,
  );
  ops.options.retryStrategy = () => 100;
  ops.options.maxRetriesPerRequest = 2;
});
afterAll(() => {
  clients.forEach((c) => c.disconnect(false));
  ops?.disconnect();
  server?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** 'allowed', or the first word of the refusal (NOPERM: refused by the ACL). */
const attempt = (p: Promise<unknown>) =>
  p.then(
    () => 'allowed',
    (err: Error) => err.message.split(' ')[0],
  );
const k = (key: string) => `${prefix}${key}`;

describe('each service user holds only its own keys and commands', () => {
  beforeAll(async () => {
    // What production holds: event streams with consumer groups, a dead letter, a revoked session,
    // a timer of the jobs service, rate-limit counters.
    for (const s of STREAM_SOURCES)
      await ops.xgroup('CREATE', k(`events:${s}:0`), 'analytics', '0', 'MKSTREAM');
    await ops.xadd(k('events:jobs:0'), '*', 'e', '{}');
    await ops.xadd(k('events:dlq:jobs'), '*', 'event', '{}');
    await ops.zadd(k('auth:revoked-sessions'), Date.now() + 600_000, 'sid-1');
    await ops.zadd(k('bull:jobs-timers:delayed'), 1, 'auto-accept-x');
    await ops.set(k('rl:api:someone:1'), '3');
    await ops.set(k('ratelimit:identity:signin:1.2.3.4'), '3');
  });

  it('refuses the gateway a BullMQ timer, moving a consumer group, deleting a stream and removing a revoked session', async () => {
    const gw = as('gateway');
    // An auto-accept added through BullMQ itself, as the attacker did, and by hand.
    const connection = new Redis(urlOf('gateway'), { maxRetriesPerRequest: null });
    const queue = new Queue('jobs-timers', { connection, prefix: k('bull') });
    try {
      await expect(
        queue.add('auto-accept', { jobId: 'j', submissionId: 's' }, { jobId: 'forged' }),
      ).rejects.toThrow(/NOPERM/);
    } finally {
      await queue.close();
      connection.disconnect();
    }
    expect(await attempt(gw.zadd(k('bull:jobs-timers:delayed'), 0, 'forged'))).toBe('NOPERM');
    expect(await attempt(gw.xgroup('SETID', k('events:jobs:0'), 'analytics', '0'))).toBe('NOPERM');
    expect(await attempt(gw.del(k('events:jobs:0')))).toBe('NOPERM');
    expect(await attempt(gw.zrem(k('auth:revoked-sessions'), 'sid-1'))).toBe('NOPERM');
    expect(await ops.zscore(k('auth:revoked-sessions'), 'sid-1')).not.toBeNull();
    expect(await ops.xlen(k('events:jobs:0'))).toBe(1);
    expect(await ops.zcard(k('bull:jobs-timers:delayed'))).toBe(1);
  });

  it('refuses every user what is not its own, and lets it do what it needs (users x keys)', async () => {
    const own = (u: RedisUser) => SERVICE_KEYS[u];
    const consumes = (u: RedisUser, s: string) =>
      Object.values(own(u).groups).some((sources) => (sources as readonly string[]).includes(s));
    /** Every attempt whose outcome is not the expected one, as "user: what: got, expected". */
    const wrong: string[] = [];
    for (const u of REDIS_USERS) {
      const c = as(u);
      const check = async (what: string, p: Promise<unknown>, allowed: boolean) => {
        const got = await attempt(p);
        const expected = allowed ? 'allowed' : 'NOPERM';
        if (got !== expected) wrong.push(`${u}: ${what}: ${got}, expected ${expected}`);
      };
      for (const s of STREAM_SOURCES) {
        const stream = k(`events:${s}:0`);
        // Publishing: its own events only.
        await check(
          `XADD events:${s}`,
          c.xadd(k(`events:${s}:1`), 'MAXLEN', '~', '1000', '*', 'e', '{}'),
          own(u).publishes.includes(s),
        );
        // Consuming: only the sources one of its groups handles (a group's name is not checkable).
        await check(
          `XREADGROUP events:${s}`,
          c.xreadgroup('GROUP', 'analytics', `probe-${u}`, 'COUNT', 1, 'STREAMS', stream, '0'),
          consumes(u, s),
        );
        // Nobody moves or destroys a group, trims or deletes a stream, or deletes an entry.
        await check(`XGROUP SETID events:${s}`, c.xgroup('SETID', stream, 'analytics', '$'), false);
        await check(`XGROUP DESTROY events:${s}`, c.xgroup('DESTROY', stream, 'analytics'), false);
        await check(`XTRIM events:${s}`, c.xtrim(stream, 'MAXLEN', 0), false);
        await check(`XDEL events:${s}`, c.xdel(stream, '0-1'), false);
        await check(`DEL events:${s}`, c.del(stream), false);
        await check(`UNLINK events:${s}`, c.unlink(stream), false);
      }
      const timers = k('bull:jobs-timers:delayed');
      await check('BullMQ timer (ZADD delayed)', c.zadd(timers, 2, `probe-${u}`), u === 'jobs');
      await check(
        'BullMQ job hash',
        c.hset(k('bull:jobs-timers:forged'), 'name', 'x'),
        u === 'jobs',
      );
      const revoked = k('auth:revoked-sessions');
      await check('ZADD revoked session', c.zadd(revoked, 1, `probe-${u}`), u === 'identity');
      await check('ZREM revoked session', c.zrem(revoked, 'sid-1'), false);
      await check('DEL revoked sessions', c.del(revoked), false);
      await check('read revoked sessions', c.zrangebyscore(revoked, 0, '+inf'), true);
      await check('PUBLISH revocation', c.publish(revoked, '{}'), u === 'identity');
      await check('gateway rate limit', c.get(k('rl:api:someone:1')), u === 'gateway');
      await check(
        'identity rate limit',
        c.incr(k('ratelimit:identity:signin:1.2.3.4')),
        u === 'identity',
      );
      await check('live ticket', c.set(k('live:ticket:probe'), '{}', 'EX', 60), u === 'gateway');
      await check('live messages', c.xadd(k('live:messages'), '*', 'm', '{}'), u === 'gateway');
      await check(
        "jobs' dead letter",
        c.xrange(k('events:dlq:jobs'), '-', '+'),
        u === 'jobs' || u === 'admin',
      );
      await check("jobs' replay request", c.set(k('dlq-replay:jobs'), 'now'), u === 'admin');
      // A script reaches no more than its user: its keys and its commands are checked too.
      await check(
        'EVAL deleting a stream',
        c.eval("return redis.call('DEL', KEYS[1])", 1, k('events:jobs:0')),
        false,
      );
      await check('outside the prefix', c.set('other-app:key', '1'), false);
      await check('FLUSHALL', c.call('FLUSHALL'), false);
      await check('KEYS', c.keys('*'), false);
      await check('CONFIG GET', c.call('CONFIG', 'GET', 'requirepass'), false);
      await check('ACL LIST', c.call('ACL', 'LIST'), false);
    }
    expect(wrong).toEqual([]);
    // The gateway's scripts reach only its live keys, whatever the script names.
    expect(
      await attempt(
        as('gateway').eval(
          "return redis.call('XADD', ARGV[1], '*', 'e', '{}')",
          1,
          k('live:seen:x'),
          k('events:jobs:0'),
        ),
      ),
    ).toMatch(/^(NOPERM|ERR)$/);
    // None of the refused attempts changed anything.
    expect(await ops.xlen(k('events:jobs:0'))).toBe(1);
    expect(await ops.zscore(k('auth:revoked-sessions'), 'sid-1')).not.toBeNull();
    expect(await ops.exists('other-app:key')).toBe(0);
  });

  it("runs the jobs service's BullMQ timers under its user", async () => {
    const connection = new Redis(urlOf('jobs'), { maxRetriesPerRequest: null });
    const queue = new Queue('jobs-timers', { connection, prefix: k('bull') });
    try {
      const job = await queue.add(
        'auto-accept',
        { jobId: 'x' },
        { delay: 60_000, jobId: 'timer-1' },
      );
      expect(job.id).toBe('timer-1');
      expect(await queue.getJobState('timer-1')).toBe('delayed');
      await queue.remove('timer-1');
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });

  it("lets each service publish its own events and consume the others' through the bus", async () => {
    const buses: RedisStreamsBus[] = [];
    const busAs = (u: RedisUser) => {
      const b = new RedisStreamsBus({
        url: urlOf(u),
        prefix,
        partitions: 2,
        leaseMs: 1500,
        blockMs: 200,
      });
      buses.push(b);
      return b;
    };
    try {
      const seen: EventEnvelope[] = [];
      await busAs('jobs').subscribe({
        group: 'jobs',
        sources: ['payments'],
        handler: async (e) => void seen.push(e),
      });
      const paid = createEvent('JobPaid', 'job-acl', {
        jobId: 'job-acl',
        sessionId: 'cs_1',
        posterId: 'p',
        amountCents: 100,
        paidAt: new Date().toISOString(),
      });
      await busAs('payments').publish([paid]);
      await waitFor(() => seen.length === 1, 'jobs to consume JobPaid');
      expect(seen[0].id).toBe(paid.id);
      // payments cannot publish as jobs, the gateway cannot publish at all.
      await expect(
        busAs('payments').publish([{ ...paid, source: 'jobs' } as EventEnvelope]),
      ).rejects.toThrow(/NOPERM/);
      await expect(busAs('gateway').publish([paid])).rejects.toThrow(/NOPERM/);
    } finally {
      await Promise.all(buses.map((b) => b.close()));
    }
  });
});

describe('the marketplace with every service as its own Redis user', () => {
  let stack: Stack;
  beforeAll(async () => {
    // A clean server: the checks above left streams, groups and probes behind.
    await ops.flushall();
    await ops.call('ACL', 'LOG', 'RESET');
    stack = await startStack({
      label: 'acl',
      env: { REDIS_PREFIX: prefix, AUTO_ACCEPT_AFTER_MS: '3000', REDIS_URL: urlOf('ops') },
      envOf: (service) => ({ REDIS_URL: urlOf(service) }),
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('signs in, streams live messages, posts, pays, claims, submits, accepts (by the poster and by the timer), pays the tester, logs out, replays a dead letter, and is never refused', async () => {
    const admin = await signInAdmin(stack);
    const poster = await signInPoster(stack, 'acl.poster@gmail.com');
    const tester = await signInTester(stack, 'acl.tester@gmail.com', { admin });
    // The live channel (gateway: ticket, stream, the feed's consumer group).
    const ticket = await client(stack, poster.token).post('/api/live/ticket');
    expect(ticket.status).toBe(200);
    const live = await openSse(
      `${stack.url}/api/live?ticket=${(ticket.body as unknown as { ticket: string }).ticket}`,
    );
    try {
      expect(live.status).toBe(200);
      const { jobId } = await postAndPay(stack, poster, JOB);
      await live.next(
        (m) => m.event === 'job' && m.data.job_id === jobId && m.data.status === 'open',
        15_000,
        'the paid job on the live channel',
      );
      expect((await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
      expect(await submitQuickReport(stack, tester, jobId)).toBe(201);
      expect(
        (
          await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, {
            decision: 'accept',
          })
        ).status,
      ).toBe(200);
      // A second job left to the auto-accept timer (BullMQ, under the jobs user).
      const { jobId: timed } = await postAndPay(stack, poster, JOB);
      expect((await client(stack, tester.token).post(`/api/jobs/${timed}/claim`)).status).toBe(200);
      expect(await submitQuickReport(stack, tester, timed)).toBe(201);
      await waitFor(
        async () =>
          (
            await stack.sql<{ accepted_by: string | null }>(
              'SELECT accepted_by FROM jobs.jobs WHERE id = $1',
              [timed],
            )
          )[0].accepted_by === 'auto',
        'the auto-accept timer',
        30_000,
      );
      const earnings = await waitFor(
        async () => {
          const r = await client(stack, tester.token).get('/api/tester/my-earnings');
          return r.body.jobs?.length === 2 ? r.body : undefined;
        },
        "both earnings in the tester's ledger",
        30_000,
      );
      expect(earnings).toMatchObject({ total_usd: 1.64 });
    } finally {
      live.close();
    }
    // A dead letter of notifications, replayed from the admin's Overview by notifications' own consumer.
    let letter: { stream: string; event: string } | undefined;
    for (let n = 0; !letter && n < 16; n++) {
      const [entry] = (await ops.xrange(k(`events:jobs:${n}`), '-', '+', 'COUNT', 1)) as Array<
        [string, string[]]
      >;
      if (entry) letter = { stream: k(`events:jobs:${n}`), event: entry[1][1] };
    }
    expect(letter).toBeDefined();
    await ops.xadd(
      k('events:dlq:notifications'),
      '*',
      ...['group', 'notifications', 'stream', letter!.stream, 'error', 'test', 'attempts', '5'],
      ...['failedAt', new Date().toISOString(), 'event', letter!.event],
    );
    const overview = await client(stack, admin.token).get('/api/admin/dead-letters');
    expect(overview.body).toMatchObject({ total: 1 });
    expect(
      (await client(stack, admin.token).post('/api/admin/dead-letters/replay', {})).status,
    ).toBe(200);
    await waitFor(
      async () => (await ops.xlen(k('events:dlq:notifications'))) === 0,
      'the letter applied',
    );
    // Logout: identity records and announces the revocation; the gateway refuses the token.
    await fetch(`${stack.url}/api/auth/logout`, {
      method: 'POST',
      headers: { cookie: poster.jar.header() },
    });
    await waitFor(
      async () => (await client(stack, poster.token).get('/api/me')).status === 401,
      'the logged-out token refused',
    );
    // Every process talked to Redis as its own service's user, and none was ever refused.
    const users = new Set(
      String(await ops.call('CLIENT', 'LIST'))
        .split('\n')
        .map((l) => / user=(\S+)/.exec(l)?.[1]),
    );
    expect(REDIS_USERS.filter((u) => !users.has(u))).toEqual([]);
    const log = (await ops.call('ACL', 'LOG')) as unknown[][];
    const denials = log.map((entry) => {
      const m: Record<string, unknown> = {};
      for (let i = 0; i + 1 < entry.length; i += 2) m[String(entry[i])] = entry[i + 1];
      return `${m.username}: ${m.reason} ${m.object} (${m.context})`;
    });
    expect(denials).toEqual([]);
  }, 180_000);

  it('consumes in each service exactly the sources scripts/redis-acl.ts grants it', () => {
    for (const [svc, service] of [
      ['identity', stack.identity],
      ['jobs', stack.jobs],
      ['payments', stack.payments],
      ['admin', stack.admin],
      ['notifications', stack.notifications],
      ['analytics', stack.analytics],
    ] as const) {
      const consumed = [...service.ctx.events.consumedSources].sort();
      expect([svc, consumed]).toEqual([svc, [...SERVICE_KEYS[svc].groups[svc]].sort()]);
    }
  });
});
