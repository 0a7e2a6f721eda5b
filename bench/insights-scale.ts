/**
 * Insights with history: the admin's GET /api/admin/insights (through the gateway, last 90 days,
 * the tab's longest preset) with 1,000 and with 100,000 jobs of history spread over the last
 * year, p50 ratio (one client, sequential). The history is written straight into analytics'
 * projection as the event handlers leave it (one `jobs` row per job, its day counters, its
 * duration buckets), because replaying ~800,000 events through the consumer would take most of
 * the run; the query path measured is the service's own. 20 paid jobs wait for a tester in both
 * runs (the waiting count reads only the open backlog, not the history).
 */
import { bucketOfSql } from './insights-seed.js';
import { figure, isMain, runAlone, sequentialLatency, step, type Stack } from './support.js';
import { signInAdmin } from '../test/support/stack.js';

const NAME = 'insights-scale';

async function seedHistory(stack: Stack, n: number): Promise<void> {
  const q = (text: string) => stack.sql(text);
  await q(
    'TRUNCATE analytics.daily, analytics.daily_demand, analytics.durations, analytics.jobs, analytics.testers',
  );
  // n completed jobs over the last 365 days: paid 1 min after posting, claimed within 0-47 h, first result 1-5 h later.
  await q(`
    INSERT INTO analytics.jobs (job_id, geo_rule, posted_at, paid_at, first_claimed_at, last_claimed_at, first_submitted_at, completed_at, claim_recorded, submit_recorded, result_recorded)
    SELECT 'bench-' || i, (ARRAY['us_pr','us_pr_ca','global_beta'])[1 + i % 3], t, t + interval '1 minute',
           t + interval '1 minute' + (i % 48) * interval '1 hour', t + interval '1 minute' + (i % 48) * interval '1 hour',
           t + interval '1 minute' + (i % 48 + 1 + i % 5) * interval '1 hour', t + interval '3 days', true, true, true
    FROM (SELECT i, now() - interval '365 days' + (i::float / ${n}) * interval '365 days' AS t FROM generate_series(1, ${n}) i) s`);
  await q(`
    INSERT INTO analytics.jobs (job_id, geo_rule, posted_at, paid_at)
    SELECT 'bench-waiting-' || i, 'us_pr', now() - i * interval '3 hours', now() - i * interval '3 hours' FROM generate_series(1, 20) i`);
  await q(`
    INSERT INTO analytics.daily (day, posted, paid, claimed, submitted, completed_poster, revenue_cents, earnings_cents, platform_fee_cents, payouts_cents)
    SELECT d, count(*), count(*), count(*), count(*), count(*), 100 * count(*), 82 * count(*), 18 * count(*), 82 * count(*)
    FROM (SELECT (posted_at AT TIME ZONE 'UTC')::date AS d FROM analytics.jobs WHERE job_id LIKE 'bench-%' AND completed_at IS NOT NULL) s GROUP BY d`);
  await q(`
    INSERT INTO analytics.daily_demand (day, geo_rule, count)
    SELECT (paid_at AT TIME ZONE 'UTC')::date, geo_rule, count(*) FROM analytics.jobs GROUP BY 1, 2`);
  for (const [metric, start, end] of [
    ['claim', 'paid_at', 'first_claimed_at'],
    ['submit', 'first_claimed_at', 'first_submitted_at'],
    ['result', 'paid_at', 'first_submitted_at'],
  ])
    await q(`
      INSERT INTO analytics.durations (day, metric, bucket, count)
      SELECT (${end} AT TIME ZONE 'UTC')::date, '${metric}', ${bucketOfSql(`EXTRACT(EPOCH FROM ${end} - ${start}) * 1000`)}, count(*)
      FROM analytics.jobs WHERE ${end} IS NOT NULL AND ${start} IS NOT NULL GROUP BY 1, 3`);
  await q(`
    INSERT INTO analytics.testers (user_id, approved, country, last_active_at)
    SELECT 'bench-tester-' || i, true, (ARRAY['US','PR','CA'])[1 + i % 3], now() - (i % 30) * interval '1 day' FROM generate_series(1, 200) i`);
  await q(
    'ANALYZE analytics.daily; ANALYZE analytics.daily_demand; ANALYZE analytics.durations; ANALYZE analytics.jobs; ANALYZE analytics.testers',
  );
}

export async function run(stack: Stack, opts: { samples?: number } = {}): Promise<void> {
  const samples = opts.samples ?? 300;
  const admin = await signInAdmin(stack);
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const now = new Date();
  const url = `${stack.url}/api/admin/insights?from=${day(new Date(now.getTime() - 89 * 86_400_000))}&to=${day(now)}`;
  const headers = { authorization: `Bearer ${admin.token}` };
  const results: Record<number, { p50: number; p99: number }> = {};
  for (const n of [1_000, 100_000]) {
    step(NAME, `seeding ${n.toLocaleString('en-US')} jobs of history`);
    await seedHistory(stack, n);
    const check = await fetch(url, { headers });
    const body = (await check.json()) as {
      funnel: { completed: number };
      waiting_jobs: Array<{ count: number }>;
    };
    if (check.status !== 200 || !body.funnel.completed || body.waiting_jobs[0].count !== 20)
      throw new Error(`insights answered ${check.status} ${JSON.stringify(body).slice(0, 200)}`);
    await sequentialLatency(url, headers, 30); // warm-up
    step(NAME, `${samples} sequential requests`);
    results[n] = await sequentialLatency(url, headers, samples);
    figure(
      NAME,
      `${n.toLocaleString('en-US')} jobs of history, last 90 days: p50 / p99 (ms, one client)`,
      `${results[n].p50.toFixed(2)} / ${results[n].p99.toFixed(2)}`,
    );
  }
  const ratio = results[100_000].p50 / results[1_000].p50;
  figure(NAME, 'p50 ratio 100,000 / 1,000 jobs of history', ratio, {
    text: '<= 1.5',
    ok: ratio <= 1.5,
  });
  await stack.sql(
    'TRUNCATE analytics.daily, analytics.daily_demand, analytics.durations, analytics.jobs, analytics.testers',
  );
}

if (isMain(import.meta.url)) await runAlone(NAME, (s) => run(s));
