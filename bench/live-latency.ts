/**
 * 5. Live channel: with 200 open streams (40 approved testers x 5 tabs), how long from the
 * local checkout's Pay answer until every stream has the job's `available` message
 * (payments outbox -> bus -> jobs consumer -> JobPublished -> gateway-live group -> live stream
 * -> each replica's reader -> SSE), as a ratio to the outbox poll interval; and how long from a
 * claim's answer to the poster's `job` message. Also the memory one open stream costs.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import {
  client,
  signInAdmin,
  signInPoster,
  signInTester,
  JOB,
  type Actor,
} from '../test/support/stack.js';
import { openSse, type SseStream } from '../test/support/sse.js';
import { figure, isMain, pct, runAlone, sleep, step, type Stack } from './support.js';

const NAME = 'live-latency';

async function ticketOf(stack: Stack, actor: Actor): Promise<string> {
  const t = await client(stack, actor.token).post('/api/live/ticket');
  if (t.status !== 200) throw new Error(`ticket answered ${t.status} ${JSON.stringify(t.body)}`);
  return (t.body as unknown as { ticket: string }).ticket;
}

async function connect(stack: Stack, actor: Actor): Promise<SseStream> {
  const s = await openSse(`${stack.url}/api/live?ticket=${await ticketOf(stack, actor)}`);
  if (s.status !== 200) throw new Error(`stream answered ${s.status}`);
  return s;
}

/** A stream opened on a bare socket that ignores what arrives (once the 200 head is in). */
function rawStream(base: string, ticket: string): Promise<Socket> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = connectTcp(Number(port), hostname, () =>
      sock.write(
        `GET /api/live?ticket=${ticket} HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\n\r\n`,
      ),
    );
    sock.once('data', (d) =>
      String(d).startsWith('HTTP/1.1 200')
        ? resolve(sock)
        : reject(new Error(String(d).split('\r\n')[0])),
    );
    sock.on('data', () => undefined);
    sock.on('error', reject);
  });
}

const heapMb = () => process.memoryUsage().heapUsed / 1024 / 1024;

export async function run(
  stack: Stack,
  opts: { samples?: number; testers?: number } = {},
): Promise<void> {
  const samples = opts.samples ?? 20;
  const testerCount = opts.testers ?? 40;
  const perTester = 5;
  const admin = await signInAdmin(stack);
  const poster = await signInPoster(stack, `bench.live.poster.${Date.now()}@gmail.com`);
  step(NAME, `signing in ${testerCount} approved testers`);
  const testers: Actor[] = [];
  for (let i = 0; i < testerCount; i++)
    testers.push(
      await signInTester(stack, `bench.live.t${i}.${Date.now()}@gmail.com`, {
        country: 'US',
        admin,
      }),
    );

  // Memory: 200 streams held by bare sockets (next to nothing on the client side), heap before and after.
  const tickets: string[] = [];
  for (const t of testers)
    for (let k = 0; k < perTester; k++) tickets.push(await ticketOf(stack, t));
  global.gc?.();
  await sleep(500);
  const heap0 = heapMb();
  const sockets = await Promise.all(tickets.map((t) => rawStream(stack.url, t)));
  await sleep(500);
  global.gc?.();
  await sleep(500);
  const heapPer = ((heapMb() - heap0) * 1024) / sockets.length;
  for (const s of sockets) s.destroy();
  figure(NAME, 'heap per open stream, gateway side (KB; bare sockets as clients)', heapPer);
  if (!global.gc)
    figure(NAME, 'note', 'run with NODE_OPTIONS=--expose-gc for a steadier memory figure');
  await sleep(500);

  const streams: SseStream[] = [];
  for (const t of testers)
    for (let k = 0; k < perTester; k++) streams.push(await connect(stack, t));
  const posterStream = await connect(stack, poster);
  figure(NAME, 'open streams', streams.length + 1);

  step(
    NAME,
    `${samples} jobs paid, each awaited on all ${streams.length} tester streams; then claimed`,
  );
  const fanOut: number[] = [];
  const claimMs: number[] = [];
  for (let i = 0; i < samples; i++) {
    const posted = await client(stack, poster.token).post('/api/jobs', {
      ...JOB,
      title: `Live ${i}`,
      geo_rule: 'global_beta',
    });
    if (posted.status !== 201) throw new Error(`POST /api/jobs answered ${posted.status}`);
    const jobId = posted.body.job.id as string;
    const pay = await fetch(`${stack.url}${posted.body.checkout_url}/pay`, {
      method: 'POST',
      redirect: 'manual',
    });
    if (pay.status !== 303) throw new Error(`pay answered ${pay.status}`);
    const t0 = performance.now();
    const got = await Promise.all(
      streams.map((s) =>
        s.next(
          (m) => m.event === 'available' && m.data.job_id === jobId && m.data.action === 'added',
          10_000,
        ),
      ),
    );
    for (const m of got) fanOut.push(m.at - t0);

    const claimer = testers[i % testers.length];
    const c0 = performance.now();
    const claim = await client(stack, claimer.token).post(`/api/jobs/${jobId}/claim`);
    if (claim.status !== 200) throw new Error(`claim answered ${claim.status}`);
    const m = await posterStream.next(
      (x) => x.event === 'job' && x.data.job_id === jobId && x.data.status === 'claimed',
      10_000,
    );
    claimMs.push(m.at - c0);
    for (const s of [...streams, posterStream]) s.messages.length = 0;
  }
  for (const s of [...streams, posterStream]) s.close();
  fanOut.sort((a, b) => a - b);
  claimMs.sort((a, b) => a - b);
  const poll = 100; // ServiceEvents pollMs default (relays are also kicked after each commit)
  figure(NAME, 'deliveries measured (jobs x streams)', fanOut.length);
  figure(
    NAME,
    'pay answer -> available on every stream: p50 / p99 / max (ms)',
    `${pct(fanOut, 50).toFixed(1)} / ${pct(fanOut, 99).toFixed(1)} / ${fanOut[fanOut.length - 1].toFixed(1)}`,
  );
  figure(NAME, 'p50 / outbox poll interval (100 ms)', pct(fanOut, 50) / poll);
  figure(NAME, 'p99 / outbox poll interval (100 ms)', pct(fanOut, 99) / poll);
  figure(
    NAME,
    "claim answer -> poster's job message: p50 / p99 (ms)",
    `${pct(claimMs, 50).toFixed(1)} / ${pct(claimMs, 99).toFixed(1)}`,
  );
  figure(NAME, 'claim p50 / outbox poll interval (100 ms)', pct(claimMs, 50) / poll);
}

if (isMain(import.meta.url)) await runAlone(NAME, (s) => run(s));
