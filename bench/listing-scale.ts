/**
 * 2. Scale of the listing: the same authenticated GET /api/tester/available-jobs with 1,000 and
 * with 100,000 paid open jobs. p50 ratio (fine-grained, one client) with jobs' read cache
 * emptied before every request, so each one runs the query, and the EXPLAIN ANALYZE of the
 * repository's listing query, which reads the partial index jobs_available_idx. The cached
 * figures are printed as well.
 */
import { availableJobsQuery } from '@htm/jobs/testing';
import {
  cannon,
  figure,
  isMain,
  note,
  runAlone,
  seedOpenJobs,
  sequentialLatency,
  step,
  type Stack,
} from './support.js';
import { signInTester } from '../test/support/stack.js';

const NAME = 'listing-scale';

async function explain(stack: Stack): Promise<string> {
  const q = availableJobsQuery(stack.jobs.ctx.db, {
    geoRules: ['us_pr', 'us_pr_ca', 'global_beta'],
    limit: 21,
  }).toSQL();
  const rows = await stack.sql<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, BUFFERS) ${q.sql}`,
    q.params as unknown[],
  );
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

export async function run(
  stack: Stack,
  opts: { samples?: number; seconds?: number } = {},
): Promise<void> {
  const samples = opts.samples ?? 400;
  const tester = await signInTester(stack, `bench.scale.${Date.now()}@gmail.com`, {
    country: 'US',
  });
  const url = `${stack.url}/api/tester/available-jobs`;
  const headers = { authorization: `Bearer ${tester.token}` };
  const results: Record<number, { p50: number; p99: number; rps: number }> = {};
  for (const n of [1_000, 100_000]) {
    step(NAME, `seeding ${n.toLocaleString('en-US')} paid open jobs`);
    await seedOpenJobs(stack, n);
    await sequentialLatency(url, headers, 50); // warm-up
    step(NAME, `${samples} sequential requests, then autocannon ${opts.seconds ?? 5} s`);
    const seq = await sequentialLatency(url, headers, samples, () =>
      stack.jobs.deps.readCache.invalidate(),
    );
    const cached = await sequentialLatency(url, headers, samples);
    const c = await cannon(url, { headers, seconds: opts.seconds ?? 5, connections: 10 });
    results[n] = { ...seq, rps: c.rps };
    const count = n.toLocaleString('en-US');
    figure(
      NAME,
      `${count} open jobs, read cache emptied before each request: p50 / p99 (ms, one client)`,
      `${seq.p50.toFixed(2)} / ${seq.p99.toFixed(2)}`,
    );
    figure(
      NAME,
      `${count} open jobs, from the read cache: p50 / p99 (ms, one client)`,
      `${cached.p50.toFixed(2)} / ${cached.p99.toFixed(2)}`,
    );
    figure(NAME, `${count} open jobs, from the read cache: req/s (10 connections)`, c.rps);
    if (n === 100_000)
      note(
        NAME,
        'EXPLAIN (ANALYZE, BUFFERS) of availableJobsQuery at 100,000 open jobs (first page, US tester)',
        await explain(stack),
      );
  }
  const ratio = results[100_000].p50 / results[1_000].p50;
  figure(NAME, 'p50 ratio 100,000 / 1,000 open jobs (query run every time)', ratio, {
    text: '<= 1.5',
    ok: ratio <= 1.5,
  });
}

if (isMain(import.meta.url)) await runAlone(NAME, (s) => run(s));
