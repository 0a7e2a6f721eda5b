import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  adminToken,
  call,
  outboxDrained,
  publishedEvents,
  startHarness,
  startJobsStandIn,
  waitForEvent,
  type AdminHarness,
  type JobsStandIn,
} from './support.js';

let h: AdminHarness;
let jobs: JobsStandIn;
let token: string;

async function addEntry(email: string, role: string, kind: string): Promise<string> {
  const [row] = await h.svc.ctx.dbHandle.query<{ id: string }>(
    'INSERT INTO admin.waitlist_entries (email, role, kind) VALUES ($1, $2, $3) RETURNING id',
    [email, role, kind],
  );
  return row.id;
}
const countByKind = async () =>
  Object.fromEntries(
    (
      await h.svc.ctx.dbHandle.query<{ kind: string; n: number }>(
        'SELECT kind, count(*)::int AS n FROM admin.waitlist_entries GROUP BY kind',
      )
    ).map((r) => [r.kind, r.n]),
  );

beforeAll(async () => {
  jobs = await startJobsStandIn();
  h = await startHarness('admin_actions', { JOBS_URL: jobs.url });
  token = await adminToken(h);
});
afterAll(async () => {
  await h?.close();
  await jobs?.close();
});

describe('PATCH /api/admin/waitlist/:id', () => {
  it('approves a tester signup, answers the entry and emits SignupApproved', async () => {
    const id = await addEntry('approve.me@gmail.com', 'Tester (Global community)', 'signup');
    const res = await call(h, 'PATCH', `/api/admin/waitlist/${id}`, {
      token,
      body: { approved: true },
      headers: { 'x-correlation-id': 'corr-approve-1' },
    });
    expect(res.status).toBe(200);
    expect(res.body.entry).toMatchObject({
      id,
      email: 'approve.me@gmail.com',
      role: 'Tester (Global community)',
      kind: 'signup',
      approved: true,
    });
    const [row] = await h.svc.ctx.dbHandle.query<{ approved: boolean }>(
      'SELECT approved FROM admin.waitlist_entries WHERE id = $1',
      [id],
    );
    expect(row.approved).toBe(true);
    const event = await waitForEvent(h, (e) => e.type === 'SignupApproved' && e.subject === id);
    expect(event).toMatchObject({
      source: 'admin',
      correlationId: 'corr-approve-1',
      data: {
        entryId: id,
        email: 'approve.me@gmail.com',
        role: 'Tester (Global community)',
        approved: true,
      },
    });
  });

  it('can take the approval back, announcing approved false', async () => {
    const id = await addEntry('toggle@gmail.com', 'Tester (student)', 'signup');
    await call(h, 'PATCH', `/api/admin/waitlist/${id}`, { token, body: { approved: true } });
    const res = await call(h, 'PATCH', `/api/admin/waitlist/${id}`, {
      token,
      body: { approved: false },
    });
    expect(res.status).toBe(200);
    expect(res.body.entry.approved).toBe(false);
    const off = await waitForEvent(
      h,
      (e) =>
        e.type === 'SignupApproved' &&
        e.subject === id &&
        (e.data as { approved: boolean }).approved === false,
    );
    expect(off).toBeDefined();
  });

  it('marks a job request without announcing a tester approval', async () => {
    const id = await addEntry('owner@gmail.com', 'Site owner', 'job_request');
    const res = await call(h, 'PATCH', `/api/admin/waitlist/${id}`, {
      token,
      body: { approved: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.entry).toMatchObject({ kind: 'job_request', approved: true });
    await outboxDrained(h);
    expect((await publishedEvents(h)).filter((e) => e.subject === id)).toEqual([]);
  });

  it('answers 404 for unknown or malformed ids and 400 for a bad body, changing nothing', async () => {
    const missing = await call(
      h,
      'PATCH',
      '/api/admin/waitlist/9b2e0a55-52a8-4d6b-8a0e-1f4b7f0f9c11',
      { token, body: { approved: true } },
    );
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      detail: 'Waitlist entry not found.',
      code: 'waitlist_entry_not_found',
    });
    const malformed = await call(h, 'PATCH', '/api/admin/waitlist/not-a-uuid', {
      token,
      body: { approved: true },
    });
    expect(malformed.status).toBe(404);
    const id = await addEntry('body@gmail.com', 'Tester (student)', 'signup');
    for (const body of [{}, { approved: 'yes' }, { approved: 1 }]) {
      const bad = await call(h, 'PATCH', `/api/admin/waitlist/${id}`, { token, body });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual({ approved: ['Approved must be true or false'] });
    }
    const [row] = await h.svc.ctx.dbHandle.query<{ approved: boolean }>(
      'SELECT approved FROM admin.waitlist_entries WHERE id = $1',
      [id],
    );
    expect(row.approved).toBe(false);
  });
});

describe('POST /api/admin/clear-jobs (preview, then confirm)', () => {
  const preview = async (t = token) =>
    call(h, 'POST', '/api/admin/clear-jobs/preview', { token: t });
  const clear = async (confirmation: unknown, t = token, headers: Record<string, string> = {}) =>
    call(h, 'POST', '/api/admin/clear-jobs', {
      token: t,
      body: confirmation === undefined ? {} : { confirmation },
      headers,
    });

  it('previews the counts and money, then clears exactly that with the confirmation, deleting the job requests', async () => {
    await h.svc.ctx.dbHandle.query('DELETE FROM admin.waitlist_entries');
    await addEntry('r1@gmail.com', 'Site owner', 'job_request');
    await addEntry('r2@gmail.com', 'Site owner', 'job_request');
    await addEntry('s1@gmail.com', 'Tester (student)', 'signup');
    await addEntry('w1@outlook.com', 'tester', 'waitlist');
    const p = await preview();
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({
      jobs_total: 3,
      jobs_by_status: { open: 1, claimed: 1, completed: 1 },
      submissions: 2,
      paid_unfinished: 1,
      paid_unfinished_cents: 100,
      paid_completed: 1,
      unpaid: 1,
      job_requests: 2,
      confirmation: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
    });
    expect(p.body.fingerprint).toBeUndefined();
    expect(Date.parse(p.body.expires_at) - Date.now()).toBeGreaterThan(4 * 60_000);
    // Only a hash of the confirmation is stored.
    const stored = await h.svc.ctx.dbHandle.query<{ token_hash: string }>(
      'SELECT token_hash FROM admin.clear_confirmations',
    );
    expect(stored.map((r) => r.token_hash)).not.toContain(p.body.confirmation);

    const res = await clear(p.body.confirmation, token, { 'x-correlation-id': 'corr-clear-1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      jobs_deleted: 3,
      submissions_deleted: 2,
      waitlist_deleted: 2,
      refunded_jobs: 1,
    });
    expect(jobs.calls).toEqual([
      {
        service: 'admin',
        body: { fingerprint: 'fp-1', actor_id: expect.any(String) },
        correlationId: 'corr-clear-1',
      },
    ]);
    expect(await countByKind()).toEqual({ signup: 1, waitlist: 1 });

    // Single use: the same confirmation again is refused and jobs is not asked.
    const again = await clear(p.body.confirmation);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      detail:
        'This confirmation is expired, already used or not yours. Please preview the clear again.',
      code: 'confirmation_invalid',
    });
    expect(jobs.calls).toHaveLength(1);
  });

  it('refuses a clear without a confirmation (400) or with a made-up one (409), asking jobs nothing', async () => {
    const calls = jobs.calls.length;
    const none = await clear(undefined);
    expect(none.status).toBe(400);
    expect(none.body.errors.confirmation).toEqual([
      'Preview the clear first, then confirm it with the confirmation it gives',
    ]);
    expect((await clear('made-up-token')).status).toBe(409);
    expect(jobs.calls).toHaveLength(calls);
  });

  it("refuses an expired confirmation and another admin session's confirmation", async () => {
    const p = await preview();
    const other = await h.issuer.mint({ type: 'admin', email: 'admin@gmail.com' });
    expect((await clear(p.body.confirmation, other)).status).toBe(409);
    const q = await preview();
    await h.svc.ctx.dbHandle.query(
      "UPDATE admin.clear_confirmations SET expires_at = now() - interval '1 second' WHERE used_at IS NULL",
    );
    const expired = await clear(q.body.confirmation);
    expect(expired.status).toBe(409);
    expect(expired.body.code).toBe('confirmation_invalid');
  });

  it('accepts the confirmation only from the admin session that asked for the preview, not from another session of the same admin', async () => {
    const id = randomUUID();
    const sessionA = await h.issuer.mint({
      id,
      type: 'admin',
      email: 'admin@gmail.com',
      sid: randomUUID(),
    });
    const sessionB = await h.issuer.mint({
      id,
      type: 'admin',
      email: 'admin@gmail.com',
      sid: randomUUID(),
    });
    const calls = jobs.calls.length;
    const p = await preview(sessionA);
    expect(p.status).toBe(200);
    const elsewhere = await clear(p.body.confirmation, sessionB);
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.code).toBe('confirmation_invalid');
    expect(jobs.calls).toHaveLength(calls);
    // The session that asked still can (the refusal did not use it up).
    const own = await clear(p.body.confirmation, sessionA);
    expect(own.status).toBe(200);
    expect(jobs.calls).toHaveLength(calls + 1);
  });

  it('refuses with 409 clear_preview_stale when the jobs or job requests changed since the preview, deleting nothing', async () => {
    await addEntry('r9@gmail.com', 'Site owner', 'job_request');
    const p = await preview();
    jobs.preview = { ...jobs.preview, fingerprint: 'fp-2' };
    const stale = await clear(p.body.confirmation);
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('clear_preview_stale');
    expect(stale.body.detail).toBe(
      'The jobs changed since the preview, so nothing was cleared. Please review the new counts and confirm again.',
    );
    expect((await countByKind()).job_request).toBe(1);

    const q = await preview();
    await addEntry('r10@gmail.com', 'Site owner', 'job_request');
    const calls = jobs.calls.length;
    const moved = await clear(q.body.confirmation);
    expect(moved.status).toBe(409);
    expect(moved.body.code).toBe('clear_preview_stale');
    expect(jobs.calls).toHaveLength(calls);
    expect((await countByKind()).job_request).toBe(2);
  });

  it('answers 503 and deletes nothing when jobs fails', async () => {
    const p = await preview();
    jobs.answer = { status: 500, body: { detail: 'boom', code: 'internal_error' } };
    const failed = await clear(p.body.confirmation);
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({
      detail: 'The jobs service is not answering, so nothing was cleared. Please try again.',
      code: 'jobs_unavailable',
    });
    expect((await countByKind()).job_request).toBe(2);
    jobs.answer = {
      status: 200,
      body: { jobs_deleted: 0, submissions_deleted: 0, refunded_jobs: 0 },
    };
  });

  it('answers 503 to the preview and deletes nothing when jobs is down', async () => {
    await jobs.close();
    const res = await preview();
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('jobs_unavailable');
    expect((await countByKind()).job_request).toBe(2);
  });
});
