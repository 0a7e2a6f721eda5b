/**
 * 1. Gateway read path: an authenticated GET /api/tester/available-jobs through the gateway
 * (JWT verify, Redis rate limit, proxy, jobs service, Postgres) with 10,000 paid open jobs,
 * against a bare express hello-world, both loaded by autocannon from a second process.
 */
import { cannon, figure, isMain, runAlone, seedOpenJobs, startBareExpress, step, type Stack } from './support.js';
import { signInTester } from '../test/support/stack.js';

const NAME = 'gateway-read';

export async function run(stack: Stack, opts: { seconds?: number; connections?: number } = {}): Promise<void> {
  const seconds = opts.seconds ?? 8;
  const connections = opts.connections ?? 10;
  step(NAME, 'seeding 10,000 paid open jobs');
  await seedOpenJobs(stack, 10_000);
  const tester = await signInTester(stack, `bench.reader.${Date.now()}@gmail.com`, { country: 'US' });
  const url = `${stack.url}/api/tester/available-jobs`;
  const headers = { authorization: `Bearer ${tester.token}` };
  const check = await fetch(url, { headers });
  const body = (await check.json()) as { jobs: unknown[] };
  if (check.status !== 200 || body.jobs.length !== 20) throw new Error(`available-jobs answered ${check.status} with ${body.jobs?.length} jobs`);

  const bare = await startBareExpress();
  try {
    step(NAME, `warming up (2 s each), then ${seconds} s per target at ${connections} connections`);
    await cannon(`${bare.url}/hello`, { connections, seconds: 2 });
    await cannon(url, { connections, seconds: 2, headers });
    step(NAME, 'bare express hello-world');
    const b = await cannon(`${bare.url}/hello`, { connections, seconds });
    step(NAME, 'gateway -> jobs -> Postgres');
    const g = await cannon(url, { connections, seconds, headers });
    if (g.non2xx || g.errors) throw new Error(`gateway run had ${g.non2xx} non-2xx answers and ${g.errors} errors`);
    figure(NAME, 'bare express req/s', b.rps);
    figure(NAME, 'bare express p50 / p99 (ms)', `${b.p50} / ${b.p99}`);
    figure(NAME, 'gateway available-jobs req/s (10k open jobs, page of 20)', g.rps);
    figure(NAME, 'gateway available-jobs p50 / p99 (ms)', `${g.p50} / ${g.p99}`);
    const ratio = g.rps / b.rps;
    figure(NAME, 'gateway / bare express throughput ratio', ratio, { text: '>= 0.35', ok: ratio >= 0.35 });
  } finally {
    await bare.close();
  }
}

if (isMain(import.meta.url)) await runAlone(NAME, (s) => run(s));
