/**
 * 4. Event latency: from the local checkout's Pay answer (the signed webhook was handled, the
 * ledger and the JobPaid outbox row committed) to the job appearing in the tester's
 * available-jobs (relay -> Redis Streams -> jobs consumer -> projection), 200 samples.
 */
import { client, signInPoster, signInTester, JOB } from '../test/support/stack.js';
import { figure, isMain, pct, runAlone, step, type Stack } from './support.js';

const NAME = 'event-latency';

export async function run(stack: Stack, opts: { samples?: number } = {}): Promise<void> {
  const samples = opts.samples ?? 200;
  const poster = await signInPoster(stack, `bench.latency.poster.${Date.now()}@gmail.com`);
  const tester = await signInTester(stack, `bench.latency.tester.${Date.now()}@gmail.com`, {
    country: 'US',
  });
  await stack.sql('TRUNCATE jobs.jobs, jobs.submissions, jobs.files');
  step(NAME, `${samples} jobs posted, paid and polled for (one at a time)`);
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const posted = await client(stack, poster.token).post('/api/jobs', {
      ...JOB,
      title: `Latency ${i}`,
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
    for (;;) {
      const r = await client(stack, tester.token).get('/api/tester/available-jobs?limit=5');
      if (r.body.jobs?.some((j: { id: string }) => j.id === jobId)) break;
      if (performance.now() - t0 > 10_000) throw new Error(`job ${jobId} not listed within 10 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
    ms.push(performance.now() - t0);
    if ((i + 1) % 50 === 0) step(NAME, `${i + 1}/${samples}`);
  }
  ms.sort((a, b) => a - b);
  const poll = 100; // ServiceEvents pollMs default (relays are also kicked after each commit)
  figure(NAME, 'samples', ms.length);
  figure(
    NAME,
    'pay answer -> listed: p50 / p99 / max (ms)',
    `${pct(ms, 50).toFixed(1)} / ${pct(ms, 99).toFixed(1)} / ${ms[ms.length - 1].toFixed(1)}`,
  );
  figure(NAME, 'p50 / relay poll interval (100 ms)', pct(ms, 50) / poll);
  figure(NAME, 'p99 / relay poll interval (100 ms)', pct(ms, 99) / poll);
}

if (isMain(import.meta.url)) await runAlone(NAME, (s) => run(s));
