import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { availableJobsQuery } from '../src/db/job.repository.js';
import { startHarness, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('index');
  // 100k jobs: a quarter live (open + paid), the rest unpaid, claimed or completed.
  await h.svc.ctx.dbHandle.query(`
    INSERT INTO jobs.jobs (title, url, what_to_test, requirements, status, payment_status, poster_id, geo_rule, created_at)
    SELECT 'job ' || g, 'https://example.com/' || g, 'test it', '["check"]'::jsonb,
           CASE WHEN g % 4 = 0 THEN 'open' WHEN g % 4 = 1 THEN 'open' WHEN g % 4 = 2 THEN 'claimed' ELSE 'completed' END,
           CASE WHEN g % 4 = 1 THEN 'unpaid' ELSE 'paid' END,
           'poster-' || (g % 500),
           (ARRAY['us_pr','us_pr_ca','global_beta'])[1 + g % 3],
           now() - (g || ' seconds')::interval
    FROM generate_series(1, 100000) AS g`);
  await h.svc.ctx.dbHandle.query('ANALYZE jobs.jobs');
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function plan(opts: Parameters<typeof availableJobsQuery>[1]): Promise<string> {
  const q = availableJobsQuery(h.svc.ctx.db, opts).toSQL();
  const rows = await h.svc.ctx.dbHandle.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN ${q.sql}`,
    q.params as unknown[],
  );
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe('available jobs query at 100k jobs', () => {
  it('reads the first page through the partial index, without a sort', async () => {
    const p = await plan({ geoRules: ['us_pr', 'us_pr_ca', 'global_beta'], limit: 21 });
    expect(p).toMatch(/Index Scan using jobs_available_idx/);
    expect(p).not.toMatch(/Seq Scan|Sort/);
  });

  it('reads later pages (cursor) and narrower geo rules through the same index', async () => {
    const [row] = await h.svc.ctx.dbHandle.query<{ ts: string; id: string }>(
      `SELECT created_at::text AS ts, id FROM jobs.jobs WHERE status='open' AND payment_status='paid' ORDER BY created_at DESC OFFSET 5000 LIMIT 1`,
    );
    const p = await plan({
      geoRules: ['global_beta'],
      limit: 21,
      after: { createdAt: row.ts, id: row.id },
    });
    expect(p).toMatch(/Index Scan using jobs_available_idx/);
    expect(p).not.toMatch(/Seq Scan|Sort/);
  });

  it('answers a page quickly over HTTP', async () => {
    const tok = await h.issuer.mint({ type: 'tester', approved: true, country: 'US' });
    const r = await fetch(`${h.svc.url}/api/tester/available-jobs?limit=20`, {
      headers: { authorization: `Bearer ${tok}` },
    });
    const body = (await r.json()) as { jobs: unknown[]; next_cursor: string };
    expect(body.jobs).toHaveLength(20);
    expect(body.next_cursor).toBeTruthy();
  });
});
