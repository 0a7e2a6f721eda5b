import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  admin,
  api,
  handled,
  outboxEvents,
  paidJob,
  poster,
  publish,
  startHarness,
  tester,
  waitFor,
  type ApiAnswer,
  type Harness,
} from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('claims', { MAX_ACTIVE_CLAIMS: '2' });
});
afterAll(async () => {
  await h?.close();
});

/** Claims the service refused without a database read (its Prometheus counter). */
async function lostInMemory(): Promise<number> {
  const text = await (await fetch(`${h.svc.url}/metrics`)).text();
  const m = /^jobs_claims_lost_in_memory_total(?:\{[^}]*\})? (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

describe('claiming', () => {
  it('gives exactly one of 50 simultaneous claims on one job a 200, the other 49 a 409', async () => {
    const p = await poster(h);
    const job = await paidJob(h, p);
    const testers = await Promise.all(Array.from({ length: 50 }, () => tester(h)));
    const lostBefore = await lostInMemory();
    const answers = await Promise.all(
      testers.map((t) => api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const winner = testers[statuses.indexOf(200)];
    expect(answers[statuses.indexOf(200)].body.job).toMatchObject({
      status: 'claimed',
      tester_id: winner.id,
    });
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body).toEqual({
        detail: 'This job has already been taken by another tester.',
        code: 'job_taken',
      });
    }
    // Claims that overlapped the winner were answered without reading the job (ClaimGate).
    expect(await lostInMemory()).toBeGreaterThan(lostBefore);
    const claimed = await outboxEvents(h, 'JobClaimed', job.id);
    expect(claimed).toHaveLength(1);
    expect(claimed[0].data).toMatchObject({ jobId: job.id, testerId: winner.id, by: 'tester' });
    // default claim timeout = expected_completion_hours (48 h)
    expect(Date.parse(claimed[0].data.deadlineAt) - Date.parse(claimed[0].data.claimedAt)).toBe(
      48 * 3600_000,
    );
  });

  it('answers a claim of a job known to be claimed without reading it, and reads it again once its status moves on', async () => {
    const p = await poster(h);
    const job = await paidJob(h, p);
    const [first, late] = await Promise.all([tester(h), tester(h)]);
    const sql = (text: string) => h.svc.ctx.dbHandle.query(text, [job.id]);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, first.token)).status).toBe(200);
    // A claim well after the winner's: the job is known to be claimed, so it is not read again.
    let lost = await lostInMemory();
    const taken = await api(h, 'POST', `/api/jobs/${job.id}/claim`, late.token);
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({
      detail: 'This job has already been taken by another tester.',
      code: 'job_taken',
    });
    expect(await lostInMemory()).toBe(lost + 1);
    // Completed elsewhere (raw SQL, as another process would write it): the next claim reads it and says so.
    await sql(`UPDATE jobs.jobs SET status = 'completed' WHERE id = $1`);
    await waitFor(
      async () =>
        (await api(h, 'POST', `/api/jobs/${job.id}/claim`, late.token)).body.code ===
        'job_completed',
      'the claim sees the completed job',
    );
    // Reopened (a claim timeout in another process): a claim wins it.
    await sql(
      `UPDATE jobs.jobs SET status = 'open', tester_id = NULL, claimed_at = NULL, claim_deadline_at = NULL WHERE id = $1`,
    );
    await waitFor(
      async () => (await api(h, 'POST', `/api/jobs/${job.id}/claim`, late.token)).status === 200,
      'the reopened job is claimed',
    );
    // Claimed by another replica: this process learns it from the notice and refuses without a read.
    await sql(
      `UPDATE jobs.jobs SET status = 'open', tester_id = NULL, claimed_at = NULL, claim_deadline_at = NULL WHERE id = $1`,
    );
    await sql(
      `UPDATE jobs.jobs SET status = 'claimed', tester_id = '${first.id}', claimed_at = now(), claim_deadline_at = now() + interval '1 hour' WHERE id = $1`,
    );
    lost = await lostInMemory();
    await waitFor(async () => {
      const answer = await api(h, 'POST', `/api/jobs/${job.id}/claim`, late.token);
      expect(answer.body.code).toBe('job_taken');
      return (await lostInMemory()) > lost;
    }, 'a claim refused without a read');
  });

  it('treats /accept as the same action as /claim and shows the job in my-jobs, not in available-jobs', async () => {
    const p = await poster(h);
    const job = await paidJob(h, p);
    const t = await tester(h);
    const r = await api(h, 'POST', `/api/jobs/${job.id}/accept`, t.token);
    expect(r.status).toBe(200);
    expect(r.body.job.claimed_at).not.toBeNull();
    const mine = await api(h, 'GET', '/api/tester/my-jobs', t.token);
    expect(mine.body.jobs.map((j) => j.id)).toEqual([job.id]);
    const avail = await api(h, 'GET', '/api/tester/available-jobs?limit=100', t.token);
    expect(avail.body.jobs.map((j) => j.id)).not.toContain(job.id);
    // The one-job rule the web app shows beside Claim (MAX_ACTIVE_CLAIMS of this harness).
    expect(avail.body.max_active_claims).toBe(2);
  });

  it("answers the holder's repeated claim (a double click, a retry after a lost answer) like the first, and one event only", async () => {
    const p = await poster(h);
    const job = await paidJob(h, p);
    const [t, other] = await Promise.all([tester(h), tester(h)]);
    const [first, double] = await Promise.all([
      api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token),
      api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token),
    ]);
    const retry = await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token);
    for (const r of [first, double, retry]) {
      expect(r.status).toBe(200);
      expect(r.body.job).toMatchObject({ id: job.id, status: 'claimed', tester_id: t.id });
    }
    // Someone else is still told the job is taken.
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, other.token)).body).toEqual({
      detail: 'This job has already been taken by another tester.',
      code: 'job_taken',
    });
    expect(await outboxEvents(h, 'JobClaimed', job.id)).toHaveLength(1);
  });

  it('enforces MAX_ACTIVE_CLAIMS even for simultaneous claims by one tester', async () => {
    const p = await poster(h);
    const jobs = await Promise.all(Array.from({ length: 5 }, () => paidJob(h, p)));
    const t = await tester(h);
    const answers = await Promise.all(
      jobs.map((j) => api(h, 'POST', `/api/jobs/${j.id}/claim`, t.token)),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
    const refused = answers.filter((a) => a.status === 409);
    expect(refused).toHaveLength(3);
    expect(refused[0].body).toMatchObject({
      code: 'too_many_claims',
      detail: 'You can work on 2 jobs at a time. Submit your current work first.',
    });
    const [{ n }] = await h.svc.ctx.dbHandle.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs.jobs WHERE tester_id = $1`,
      [t.id],
    );
    expect(n).toBe(2);
    // the refused claims left their jobs open for someone else
    const left = jobs.filter((_, i) => answers[i].status === 409);
    const rows = await h.svc.ctx.dbHandle.query<{ status: string; tester_id: string | null }>(
      `SELECT status, tester_id FROM jobs.jobs WHERE id = ANY($1::uuid[])`,
      [left.map((j) => j.id)],
    );
    expect(rows).toEqual(left.map(() => ({ status: 'open', tester_id: null })));
    const other = await tester(h);
    expect((await api(h, 'POST', `/api/jobs/${left[0].id}/claim`, other.token)).status).toBe(200);
  });

  it("answers a claim that loses the race at the UPDATE with 409 job_taken and leaves the winner's row as it is", async () => {
    const p = await poster(h);
    const job = await paidJob(h, p);
    const [winner, loser] = await Promise.all([tester(h), tester(h)]);
    const other = new pg.Client({ connectionString: h.db.url });
    await other.connect();
    let answer: ApiAnswer;
    try {
      // The winner's claim, as another replica writes it: the row stays locked until COMMIT.
      await other.query('BEGIN');
      await other.query(
        `UPDATE jobs.jobs SET status = 'claimed', tester_id = $2, claimed_at = now(), claim_deadline_at = now() + interval '1 hour' WHERE id = $1`,
        [job.id, winner.id],
      );
      const pending = api(h, 'POST', `/api/jobs/${job.id}/claim`, loser.token);
      // The loser has read the job as open and now waits at the conditional UPDATE.
      await waitFor(
        async () =>
          (
            await h.svc.ctx.dbHandle.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE 'update "jobs"%'`,
            )
          ).length,
        'the losing claim waits on the job row',
      );
      await other.query('COMMIT');
      answer = await pending;
    } finally {
      await other.end();
    }
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({
      detail: 'This job has already been taken by another tester.',
      code: 'job_taken',
    });
    const [row] = await h.svc.ctx.dbHandle.query<{ status: string; tester_id: string }>(
      `SELECT status, tester_id FROM jobs.jobs WHERE id = $1`,
      [job.id],
    );
    expect(row).toEqual({ status: 'claimed', tester_id: winner.id });
    expect(await outboxEvents(h, 'JobClaimed', job.id)).toHaveLength(0);
    expect((await api(h, 'GET', '/api/tester/my-jobs', loser.token)).body.jobs).toEqual([]);
  });

  it('refuses unapproved testers, using the projection over the token claim', async () => {
    const p = await poster(h);
    const job = await paidJob(h, p);
    const t = await tester(h, { approved: true });
    // identity unapproves them; their (older) token still says approved
    const e = await publish(h, 'TesterApprovalChanged', t.id, {
      userId: t.id,
      email: t.email,
      name: t.name,
      approved: false,
      country: 'US',
      reason: 'admin',
    });
    await waitFor(() => handled(h, e.id), 'approval change handled');
    const r = await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token);
    expect(r.status).toBe(403);
    expect(r.body.detail).toBe('Your tester account is not approved yet.');
    expect((await api(h, 'GET', '/api/tester/available-jobs', t.token)).status).toBe(403);

    // a tester not yet in the projection falls back to the token
    const fresh = { id: randomUUID() };
    const tok = await h.issuer.mint({
      id: fresh.id,
      type: 'tester',
      approved: true,
      country: 'US',
    });
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, tok)).status).toBe(200);
    const unapprovedTok = await h.issuer.mint({
      id: randomUUID(),
      type: 'tester',
      approved: false,
      country: 'US',
    });
    expect((await api(h, 'GET', '/api/tester/available-jobs', unapprovedTok)).status).toBe(403);
  });

  it('applies geo rules to available jobs and claims', async () => {
    const p = await poster(h);
    const usOnly = await paidJob(h, p, { geo_rule: 'us_pr', title: 'us only' });
    const withCa = await paidJob(h, p, { geo_rule: 'us_pr_ca', title: 'with ca' });
    const global = await paidJob(h, p, { geo_rule: 'global_beta', title: 'global' });
    const ca = await tester(h, { country: 'CA' });
    const avail = await api(h, 'GET', '/api/tester/available-jobs?limit=100', ca.token);
    const ids = avail.body.jobs.map((j) => j.id);
    expect(ids).toContain(withCa.id);
    expect(ids).toContain(global.id);
    expect(ids).not.toContain(usOnly.id);
    const refused = await api(h, 'POST', `/api/jobs/${usOnly.id}/claim`, ca.token);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('This job is not available in your country.');
    expect((await api(h, 'POST', `/api/jobs/${withCa.id}/claim`, ca.token)).status).toBe(200);
    const pr = await tester(h, { country: 'PR' });
    expect((await api(h, 'POST', `/api/jobs/${usOnly.id}/claim`, pr.token)).status).toBe(200);
  });

  it('refuses claims by posters and admins (403) and on unknown jobs (404)', async () => {
    const p = await poster(h);
    const job = await paidJob(h, p);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, p.token)).status).toBe(403);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, (await admin(h)).token)).status).toBe(
      403,
    );
    const t = await tester(h);
    expect((await api(h, 'POST', `/api/jobs/${randomUUID()}/claim`, t.token)).status).toBe(404);
  });
});

describe('available jobs pagination', () => {
  it('pages newest first with a cursor and no duplicates', async () => {
    const p = await poster(h);
    const t = await tester(h, { country: 'US' });
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await paidJob(h, p, { title: `page ${i}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: ApiAnswer = await api(
        h,
        'GET',
        `/api/tester/available-jobs?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        t.token,
      );
      expect(r.status).toBe(200);
      expect(r.body.jobs.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.jobs.map((j) => j.id));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor && pages < 100);
    expect(new Set(seen).size).toBe(seen.length);
    const mineInOrder = seen.filter((id) => made.includes(id));
    expect(mineInOrder).toEqual([...made].reverse());
    const dates = seen.length;
    expect(dates).toBeGreaterThanOrEqual(5);
  });

  it('answers 400 for a bad cursor or limit', async () => {
    const t = await tester(h);
    expect((await api(h, 'GET', '/api/tester/available-jobs?cursor=garbage', t.token)).status).toBe(
      400,
    );
    const badDate = Buffer.from(
      JSON.stringify(['2026-13-45 10:00:00+00', '00000000-0000-4000-8000-000000000000']),
    ).toString('base64url');
    expect(
      (await api(h, 'GET', `/api/tester/available-jobs?cursor=${badDate}`, t.token)).status,
    ).toBe(400);
    expect((await api(h, 'GET', '/api/tester/available-jobs?limit=0', t.token)).status).toBe(400);
    expect((await api(h, 'GET', '/api/tester/available-jobs?limit=abc', t.token)).status).toBe(400);
  });

  it('says in words what limit takes, also when it is repeated', async () => {
    const t = await tester(h);
    const limit = 'limit must be a whole number from 1 to 100';
    for (const q of ['limit=abc', 'limit=20&limit=30', 'limit=101']) {
      const r = await api(h, 'GET', `/api/tester/available-jobs?${q}`, t.token);
      expect({ q, status: r.status, body: r.body }).toEqual({
        q,
        status: 400,
        body: { detail: limit, code: 'validation_error', errors: { limit: [limit] } },
      });
    }
    const cursor = await api(h, 'GET', '/api/tester/available-jobs?cursor=garbage', t.token);
    expect(cursor.body).toMatchObject({
      detail: 'cursor must be the next_cursor of the previous page.',
      errors: { cursor: ['cursor must be the next_cursor of the previous page'] },
    });
  });
});

describe('admin assign', () => {
  it('assigns a job to an approved, eligible tester and refuses others', async () => {
    const p = await poster(h);
    const a = await admin(h);
    const job = await paidJob(h, p, { geo_rule: 'us_pr' });
    const ca = await tester(h, { country: 'CA' });
    const pending = await tester(h, { approved: false });
    const ok = await tester(h, { country: 'US' });
    expect((await api(h, 'POST', `/api/admin/assign/${job.id}/${ca.id}`, a.token)).status).toBe(
      409,
    );
    const r1 = await api(h, 'POST', `/api/admin/assign/${job.id}/${pending.id}`, a.token);
    expect(r1.status).toBe(409);
    expect(r1.body.detail).toBe('This tester is not approved.');
    expect(
      (await api(h, 'POST', `/api/admin/assign/${job.id}/${randomUUID()}`, a.token)).status,
    ).toBe(404);
    expect((await api(h, 'POST', `/api/admin/assign/${job.id}/${ok.id}`, p.token)).status).toBe(
      403,
    );
    const r = await api(h, 'POST', `/api/admin/assign/${job.id}/${ok.id}`, a.token);
    expect(r.status).toBe(200);
    expect(r.body.job).toMatchObject({ status: 'claimed', tester_id: ok.id });
    const ev = await outboxEvents(h, 'JobClaimed', job.id);
    expect(ev.at(-1)!.data).toMatchObject({ by: 'admin', testerId: ok.id });
    const again = await api(h, 'POST', `/api/admin/assign/${job.id}/${ok.id}`, a.token);
    expect(again.status).toBe(409);
  });

  it('lets the admin accept a job for a named tester through POST /api/jobs/{id}/accept (an assignment)', async () => {
    const p = await poster(h);
    const a = await admin(h);
    const job = await paidJob(h, p);
    const t = await tester(h);
    const noTester = await api(h, 'POST', `/api/jobs/${job.id}/accept`, a.token, {});
    expect(noTester.status).toBe(400);
    expect(noTester.body).toMatchObject({
      code: 'validation_error',
      errors: { tester_id: ['Choose the tester who takes this job'] },
    });
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/accept`, a.token, { tester_id: randomUUID() }))
        .status,
    ).toBe(404);
    const r = await api(h, 'POST', `/api/jobs/${job.id}/accept`, a.token, { tester_id: t.id });
    expect(r.status).toBe(200);
    expect(r.body.job).toMatchObject({ status: 'claimed', tester_id: t.id });
    expect((await outboxEvents(h, 'JobClaimed', job.id)).at(-1)!.data).toMatchObject({
      by: 'admin',
      testerId: t.id,
    });
    expect(
      (await api(h, 'POST', `/api/jobs/${job.id}/accept`, p.token, { tester_id: t.id })).status,
    ).toBe(403);
  });

  it('releases a claimed job when identity unapproves its tester', async () => {
    const p = await poster(h);
    const job = await paidJob(h, p);
    const t = await tester(h);
    expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
    const e = await publish(h, 'TesterApprovalChanged', t.id, {
      userId: t.id,
      email: t.email,
      name: t.name,
      approved: false,
      country: 'US',
      reason: 'strikes',
    });
    await waitFor(() => handled(h, e.id), 'handled');
    const [row] = await h.svc.ctx.dbHandle.query<{ status: string; tester_id: string | null }>(
      'SELECT status, tester_id FROM jobs.jobs WHERE id = $1',
      [job.id],
    );
    expect(row).toEqual({ status: 'open', tester_id: null });
    expect((await outboxEvents(h, 'JobReleased', job.id))[0].data).toMatchObject({
      reason: 'tester_unapproved',
      testerId: t.id,
    });
  });
});
