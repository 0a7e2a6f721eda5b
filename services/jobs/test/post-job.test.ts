import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  admin,
  api,
  handled,
  jobBody,
  outboxEvents,
  paidJob,
  poster,
  publish,
  startHarness,
  tester,
  waitFor,
  type Harness,
} from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('post');
});
afterAll(async () => {
  await h?.close();
});

describe('POST /api/jobs', () => {
  it('creates an unpaid job, records JobCreated and answers with the checkout session from payments', async () => {
    const p = await poster(h);
    const r = await api(
      h,
      'POST',
      '/api/jobs',
      p.token,
      jobBody({ requirements: ['  Find the pricing page  ', '   '] }),
    );
    expect(r.status).toBe(201);
    expect(r.body.checkout_url).toMatch(/^\/api\/payments\/local\/checkout\/cs_test_/);
    expect(r.body.session_id).toMatch(/^cs_test_/);
    expect(r.body.job).toMatchObject({
      status: 'open',
      payment_status: 'unpaid',
      budget: 1,
      expected_completion_hours: 48,
      geo_rule: 'us_pr',
      requirements: ['Find the pricing page'],
      poster_id: p.id,
      tester_id: null,
    });
    expect(r.body.job.poster_info).toBeUndefined();
    const call = h.payments.requests.at(-1)!;
    expect(call.caller).toBe('jobs');
    expect(call.body).toEqual({
      job_id: r.body.job.id,
      poster_id: p.id,
      title: 'Check my signup page',
      attempt: 1,
    });
    const events = await outboxEvents(h, 'JobCreated', r.body.job.id);
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      jobId: r.body.job.id,
      posterId: p.id,
      budgetCents: 100,
      geoRule: 'us_pr',
      expectedCompletionHours: 48,
    });
  });

  it('lets the admin post a job too', async () => {
    const a = await admin(h);
    const r = await api(
      h,
      'POST',
      '/api/jobs',
      a.token,
      jobBody({ geo_rule: 'global_beta', expected_completion_hours: 24, budget: 1 }),
    );
    expect(r.status).toBe(201);
    expect(r.body.job).toMatchObject({ geo_rule: 'global_beta', expected_completion_hours: 24 });
  });

  it.each([
    [{ title: '  ' }, 'title', 'Title is required'],
    [
      { url: 'ftp://example.com' },
      'url',
      'Please enter a valid URL starting with http:// or https://',
    ],
    [
      { url: 'javascript:alert(1)' },
      'url',
      'Please enter a valid URL starting with http:// or https://',
    ],
    [
      { url: 'https://exa mple.com' },
      'url',
      'Please enter a valid URL starting with http:// or https://',
    ],
    [{ url: 'example.com' }, 'url', 'Please enter a valid URL starting with http:// or https://'],
    [
      { url: 'http://localhost' },
      'url',
      'Local addresses cannot be tested: enter an address testers can open on the internet',
    ],
    [
      { url: 'http://shop.localhost:3000' },
      'url',
      'Local addresses cannot be tested: enter an address testers can open on the internet',
    ],
    [
      { url: 'http://a' },
      'url',
      'Local addresses cannot be tested: enter an address testers can open on the internet',
    ],
    [
      { url: 'http://127.0.0.1:8080' },
      'url',
      'Local addresses cannot be tested: enter an address testers can open on the internet',
    ],
    [
      { url: 'http://10.1.2.3' },
      'url',
      'Local addresses cannot be tested: enter an address testers can open on the internet',
    ],
    [
      { url: 'http://192.168.0.10' },
      'url',
      'Local addresses cannot be tested: enter an address testers can open on the internet',
    ],
    [
      { url: 'http://169.254.169.254' },
      'url',
      'Local addresses cannot be tested: enter an address testers can open on the internet',
    ],
    [{ url: undefined }, 'url', 'URL is required'],
    [{ what_to_test: '' }, 'what_to_test', 'Please describe what to test'],
    [{ requirements: [] }, 'requirements', 'Please add at least one thing to check.'],
    [{ requirements: ['   ', ''] }, 'requirements', 'Please add at least one thing to check.'],
    [{ requirements: undefined }, 'requirements', 'Please add at least one thing to check.'],
    [
      { requirements: ['x'.repeat(301)] },
      'requirements.0',
      'Each thing to check must be 300 characters or less',
    ],
    [
      { requirements: Array.from({ length: 11 }, (_, i) => `check ${i}`) },
      'requirements',
      'You can add at most 10 things to check',
    ],
    [{ budget: 2 }, 'budget', 'Budget is fixed at $1'],
    [{ budget: 0 }, 'budget', 'Budget is fixed at $1'],
    [
      { expected_completion_hours: 0 },
      'expected_completion_hours',
      'Expected completion must be a whole number of hours from 1 to 168',
    ],
    [
      { expected_completion_hours: 169 },
      'expected_completion_hours',
      'Expected completion must be a whole number of hours from 1 to 168',
    ],
    [
      { geo_rule: 'everywhere' },
      'geo_rule',
      'Please choose who may test: us_pr, us_pr_ca or global_beta',
    ],
  ])('refuses %j with 400 (%s) and stores nothing', async (over, field, message) => {
    const p = await poster(h);
    const r = await api(h, 'POST', '/api/jobs', p.token, jobBody(over));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_error');
    expect(r.body.errors[field]).toContain(message);
    const rows = await h.svc.ctx.dbHandle.query('SELECT 1 FROM jobs.jobs WHERE poster_id = $1', [
      p.id,
    ]);
    expect(rows).toHaveLength(0);
  });

  it('refuses testers (403) and anonymous callers (401)', async () => {
    const t = await tester(h);
    expect((await api(h, 'POST', '/api/jobs', t.token, jobBody())).status).toBe(403);
    expect((await api(h, 'POST', '/api/jobs', undefined, jobBody())).status).toBe(401);
  });

  it('keeps the job unpaid when payments is down, and lets the poster pay later', async () => {
    const p = await poster(h);
    h.payments.down = true;
    let r;
    try {
      r = await api(h, 'POST', '/api/jobs', p.token, jobBody());
    } finally {
      h.payments.down = false;
    }
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      checkout_url: null,
      session_id: null,
      job: { payment_status: 'unpaid' },
    });
    expect(r.body.payment_error).toMatch(/Payments are not answering/);

    const stranger = await poster(h);
    expect(
      (await api(h, 'POST', `/api/jobs/${r.body.job.id}/checkout`, stranger.token)).status,
    ).toBe(403);

    const again = await api(h, 'POST', `/api/jobs/${r.body.job.id}/checkout`, p.token);
    expect(again.status).toBe(200);
    expect(again.body.session_id).toMatch(/^cs_test_/);
    expect(h.payments.requests.at(-1)!.body).toMatchObject({ job_id: r.body.job.id, attempt: 2 });

    const a = await admin(h);
    expect((await api(h, 'POST', `/api/jobs/${r.body.job.id}/checkout`, a.token)).status).toBe(200);
  });

  it('answers 409 to a checkout for a job already paid', async () => {
    const p = await poster(h);
    const job = await paidJob(h, p);
    const r = await api(h, 'POST', `/api/jobs/${job.id}/checkout`, p.token);
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe('This job has already been paid for.');
  });

  it('answers 409 already_paid when payments knows the job is paid before jobs has heard of it', async () => {
    const p = await poster(h);
    const created = await api(h, 'POST', '/api/jobs', p.token, jobBody());
    expect(created.status).toBe(201);
    h.payments.paidJobs.add(created.body.job.id);
    const r = await api(h, 'POST', `/api/jobs/${created.body.job.id}/checkout`, p.token);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: 'This job has already been paid for.', code: 'already_paid' });
  });
});

describe('visibility and listing', () => {
  it('shows a job to testers only after JobPaid; CheckoutCancelled leaves it unpublished', async () => {
    const p = await poster(h);
    const t = await tester(h);
    const created = await api(
      h,
      'POST',
      '/api/jobs',
      p.token,
      jobBody({ title: `Visible ${randomUUID()}` }),
    );
    const jobId = created.body.job.id;
    const cancelled = await publish(h, 'CheckoutCancelled', jobId, {
      jobId,
      sessionId: created.body.session_id!,
      reason: 'cancelled',
    });
    await waitFor(() => handled(h, cancelled.id), 'cancel handled');
    const before = await api(h, 'GET', '/api/tester/available-jobs?limit=100', t.token);
    expect(before.body.jobs.map((j) => j.id)).not.toContain(jobId);
    expect((await api(h, 'POST', `/api/jobs/${jobId}/claim`, t.token)).status).toBe(409);

    expect(created.body.job.paid_at).toBeNull();
    const paidAt = new Date(Date.now() - 60_000).toISOString();
    const paid = await publish(h, 'JobPaid', jobId, {
      jobId,
      sessionId: 'cs_1',
      posterId: p.id,
      amountCents: 100,
      paidAt,
    });
    await waitFor(() => handled(h, paid.id), 'paid handled');
    const after = await api(h, 'GET', '/api/tester/available-jobs?limit=100', t.token);
    expect(after.body.jobs.find((j) => j.id === jobId)).toMatchObject({
      payment_status: 'paid',
      status: 'open',
    });
    // The poster's card says when results are expected from when the job was paid.
    const mine = await api(h, 'GET', '/api/jobs', p.token);
    expect(mine.body.jobs.find((j) => j.id === jobId)).toMatchObject({
      payment_status: 'paid',
      paid_at: paidAt,
    });
  });

  it('handles a redelivered JobPaid once (same envelope twice changes nothing twice)', async () => {
    const p = await poster(h);
    const created = await api(h, 'POST', '/api/jobs', p.token, jobBody());
    const jobId = created.body.job.id;
    const e = await publish(h, 'JobPaid', jobId, {
      jobId,
      sessionId: 'cs_dup',
      posterId: p.id,
      amountCents: 100,
      paidAt: '2026-01-01T00:00:00.000Z',
    });
    await waitFor(() => handled(h, e.id), 'first delivery');
    // an operator marks it unpaid again: a second application of the same event would re-pay it
    await h.svc.ctx.dbHandle.query(
      `UPDATE jobs.jobs SET payment_status = 'unpaid', paid_at = NULL WHERE id = $1`,
      [jobId],
    );
    await h.svc.ctx.bus.publish([e]);
    // a later event proves the redelivery was consumed (one ordered stream per subject)
    const marker = await publish(h, 'CheckoutCancelled', jobId, {
      jobId,
      sessionId: 'cs_dup',
      reason: 'expired',
    });
    await waitFor(() => handled(h, marker.id), 'marker handled');
    const [row] = await h.svc.ctx.dbHandle.query<{ payment_status: string; n: number }>(
      `SELECT payment_status, (SELECT count(*)::int FROM jobs.handled_events WHERE event_id = $2) AS n FROM jobs.jobs WHERE id = $1`,
      [jobId, e.id],
    );
    expect(row.payment_status).toBe('unpaid');
    expect(row.n).toBe(1);
  });

  it('lists own jobs for a poster, all jobs with poster_info for the admin, and refuses testers', async () => {
    const p1 = await poster(h, 'Poster One');
    const p2 = await poster(h, 'Poster Two');
    const j1 = (await api(h, 'POST', '/api/jobs', p1.token, jobBody({ title: 'one' }))).body.job;
    const j2 = (await api(h, 'POST', '/api/jobs', p2.token, jobBody({ title: 'two' }))).body.job;
    // identity later tells us p2's newer name
    const e = await publish(h, 'UserSignedUp', p2.id, {
      userId: p2.id,
      email: p2.email,
      name: 'Poster Two Renamed',
    });
    await waitFor(() => handled(h, e.id), 'signup handled');

    const mine = await api(h, 'GET', '/api/jobs', p1.token);
    expect(mine.status).toBe(200);
    expect(mine.body.jobs.map((j) => j.id)).toEqual([j1.id]);
    expect(mine.body.jobs[0].poster_info).toBeUndefined();

    const a = await admin(h);
    const all = await api(h, 'GET', '/api/jobs', a.token);
    const byId = new Map(all.body.jobs.map((j) => [j.id, j] as const));
    expect(byId.get(j1.id)).toMatchObject({ poster_info: { email: p1.email, name: 'Poster One' } });
    expect(byId.get(j2.id)).toMatchObject({
      poster_info: { email: p2.email, name: 'Poster Two Renamed' },
    });

    const t = await tester(h);
    expect((await api(h, 'GET', '/api/jobs', t.token)).status).toBe(403);
  });

  it('answers 404 for unknown or malformed job ids', async () => {
    const p = await poster(h);
    expect((await api(h, 'POST', `/api/jobs/${randomUUID()}/checkout`, p.token)).status).toBe(404);
    expect((await api(h, 'POST', `/api/jobs/not-a-uuid/checkout`, p.token)).status).toBe(404);
  });
});

describe('DELETE /api/jobs/{id} (an unpaid job, by its poster)', () => {
  const listIds = async (token: string) =>
    (
      (await api<{ jobs: Array<{ id: string }> }>(h, 'GET', '/api/jobs', token)).body.jobs ?? []
    ).map((j) => j.id);

  it("removes an unpaid job from the poster's and the admin's lists; others get 403, a second delete 404", async () => {
    const p = await poster(h);
    const other = await poster(h);
    const a = await admin(h);
    const r = await api(h, 'POST', '/api/jobs', p.token, jobBody());
    const id = r.body.job.id;
    expect((await api(h, 'DELETE', `/api/jobs/${id}`, other.token)).status).toBe(403);
    expect((await api(h, 'DELETE', `/api/jobs/${id}`, (await tester(h)).token)).status).toBe(403);
    expect(await listIds(p.token)).toContain(id);
    const del = await api(h, 'DELETE', `/api/jobs/${id}`, p.token);
    expect(del.status).toBe(204);
    expect(await listIds(p.token)).not.toContain(id);
    expect(await listIds(a.token)).not.toContain(id);
    expect((await api(h, 'DELETE', `/api/jobs/${id}`, p.token)).status).toBe(404);
    expect((await api(h, 'POST', `/api/jobs/${id}/checkout`, p.token)).status).toBe(404);
  });

  it('refuses to delete a paid job (409 already_paid) and keeps it', async () => {
    const p = await poster(h);
    const job = await paidJob(h, p);
    const del = await api(h, 'DELETE', `/api/jobs/${job.id}`, p.token);
    expect(del.status).toBe(409);
    expect(del.body).toMatchObject({ code: 'already_paid' });
    expect(await listIds(p.token)).toContain(job.id);
  });

  it('brings a deleted job back, live, when its old checkout is paid after all', async () => {
    const p = await poster(h);
    const r = await api(h, 'POST', '/api/jobs', p.token, jobBody());
    const id = r.body.job.id;
    expect((await api(h, 'DELETE', `/api/jobs/${id}`, p.token)).status).toBe(204);
    const e = await publish(h, 'JobPaid', id, {
      jobId: id,
      sessionId: r.body.session_id ?? 'cs_x',
      posterId: p.id,
      amountCents: 100,
      paidAt: new Date().toISOString(),
    });
    await waitFor(() => handled(h, e.id), 'JobPaid handled');
    const mine = (
      await api<{ jobs: Array<{ id: string; payment_status: string }> }>(
        h,
        'GET',
        '/api/jobs',
        p.token,
      )
    ).body.jobs;
    expect(mine.find((j) => j.id === id)).toMatchObject({ payment_status: 'paid' });
  });
});
