/**
 * The audit log: every admin action one row (who, what, target, when, correlation id), from the
 * events the owning services publish (a redelivery adds nothing) and from admin's own approvals;
 * append-only in the database; read and exported by the admin only.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createEvent, type EventData, type EventType } from '@htm/events';
import { waitFor } from '@htm/service-kit/testing';
import { call, startHarness, type AdminHarness } from './support.js';

let h: AdminHarness;
let token: string;
const ADMIN = randomUUID();

beforeAll(async () => {
  h = await startHarness('admin_audit');
  token = await h.issuer.mint({ type: 'admin', email: 'admin@gmail.com', id: ADMIN });
});
afterAll(async () => {
  await h?.close();
});

async function publish<T extends EventType>(
  type: T,
  subject: string,
  data: EventData<T>,
  id?: string,
) {
  const e = createEvent(type, subject, data, { id, correlationId: `corr-${type}` });
  await h.svc.ctx.bus.publish([e]);
  return e;
}
const rowsFor = (eventId: string) =>
  h.svc.ctx.dbHandle.query<{
    action: string;
    actor_id: string | null;
    target: string;
    correlation_id: string;
  }>('SELECT * FROM admin.audit_log WHERE event_id = $1', [eventId]);
const handled = async (id: string) =>
  (await h.svc.ctx.dbHandle.query('SELECT 1 FROM admin.handled_events WHERE event_id = $1', [id]))
    .length === 1;

describe('audit log', () => {
  it('records each admin action once, from its event, with the actor, target and correlation id; a redelivery adds nothing', async () => {
    const jobId = randomUUID();
    const testerId = randomUUID();
    const now = new Date().toISOString();
    const events = [
      await publish('TesterApprovalChanged', testerId, {
        userId: testerId,
        email: 't@gmail.com',
        name: 'Tess',
        approved: true,
        country: 'US',
        reason: 'admin',
        actorId: ADMIN,
      }),
      await publish('JobClaimed', jobId, {
        jobId,
        testerId,
        claimedAt: now,
        deadlineAt: now,
        by: 'admin',
        posterId: null,
        actorId: ADMIN,
      }),
      await publish('SubmissionAccepted', jobId, {
        jobId,
        testerId,
        posterId: randomUUID(),
        title: 'Shop',
        acceptedBy: 'admin',
        acceptedAt: now,
        actorId: ADMIN,
      }),
      await publish('TesterPaid', testerId, {
        testerId,
        payoutId: randomUUID(),
        amountCents: 82,
        jobIds: [jobId],
        paidAt: now,
        actorId: ADMIN,
      }),
      await publish('JobsCleared', 'all-jobs', {
        jobsDeleted: 4,
        submissionsDeleted: 2,
        refundJobIds: [jobId],
        actorId: ADMIN,
      }),
    ];
    // Not admin actions: a tester's own claim, a poster's accept, strikes.
    const ignored = [
      await publish('JobClaimed', jobId, {
        jobId,
        testerId,
        claimedAt: now,
        deadlineAt: now,
        by: 'tester',
        posterId: null,
      }),
      await publish('SubmissionAccepted', jobId, {
        jobId,
        testerId,
        posterId: randomUUID(),
        title: 'Shop',
        acceptedBy: 'poster',
        acceptedAt: now,
      }),
      await publish('TesterApprovalChanged', testerId, {
        userId: testerId,
        email: 't@gmail.com',
        name: 'Tess',
        approved: false,
        country: 'US',
        reason: 'strikes',
      }),
    ];
    await waitFor(
      async () =>
        (await Promise.all([...events, ...ignored].map((e) => handled(e.id)))).every(Boolean),
      'every event handled',
    );
    // Redelivered (the same event id again): still one row each.
    // Then an event on the same subject (same partition, so handled after it).
    await h.svc.ctx.bus.publish([events[1]!]);
    const after = await publish('JobClaimed', jobId, {
      jobId,
      testerId,
      claimedAt: now,
      deadlineAt: now,
      by: 'tester',
      posterId: null,
    });
    await waitFor(() => handled(after.id), 'the event after the redelivery handled');

    const got = await Promise.all(
      events.map(async (e) =>
        (await rowsFor(e.id)).map((r) => [r.action, r.actor_id, r.target, r.correlation_id]),
      ),
    );
    expect(got).toEqual([
      [['tester.approved', ADMIN, `tester:${testerId}`, 'corr-TesterApprovalChanged']],
      [['job.assigned', ADMIN, `job:${jobId}`, 'corr-JobClaimed']],
      [['submission.accepted', ADMIN, `job:${jobId}`, 'corr-SubmissionAccepted']],
      [['payout.sent', ADMIN, `tester:${testerId}`, 'corr-TesterPaid']],
      [['jobs.cleared', ADMIN, 'jobs:all', 'corr-JobsCleared']],
    ]);
    for (const e of ignored) expect(await rowsFor(e.id)).toHaveLength(0);

    const page = await call(h, 'GET', '/api/admin/audit?page_size=2', { token });
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(5);
    expect(page.body.entries).toHaveLength(2);
    const cleared = await call(h, 'GET', '/api/admin/audit?action=jobs.cleared', { token });
    expect(cleared.body.entries).toEqual([
      expect.objectContaining({
        actor_id: ADMIN,
        target: 'jobs:all',
        details: expect.objectContaining({ jobs_deleted: 4, refunded_jobs: 1 }),
        correlation_id: 'corr-JobsCleared',
      }),
    ]);
    const filtered = await call(
      h,
      'GET',
      `/api/admin/audit?action=job.assigned&target=job:${jobId}`,
      { token },
    );
    expect(filtered.body.entries).toHaveLength(1);
    expect((await call(h, 'GET', '/api/admin/audit?action=nonsense', { token })).status).toBe(400);
  });

  it("records the admin's own signup approval in the same transaction, with the admin as actor", async () => {
    const [entry] = await h.svc.ctx.dbHandle.query<{ id: string }>(
      "INSERT INTO admin.waitlist_entries (email, role, kind) VALUES ('aud@gmail.com', 'Tester (student)', 'signup') RETURNING id",
    );
    expect(
      (
        await call(h, 'PATCH', `/api/admin/waitlist/${entry!.id}`, {
          token,
          body: { approved: true },
        })
      ).status,
    ).toBe(200);
    const rows = await h.svc.ctx.dbHandle.query<{
      action: string;
      actor_id: string;
      target: string;
    }>("SELECT * FROM admin.audit_log WHERE action = 'signup.approved'");
    expect(rows.map((r) => [r.action, r.actor_id, r.target])).toEqual([
      ['signup.approved', ADMIN, `waitlist:${entry!.id}`],
    ]);
  });

  it('refuses UPDATE, DELETE and TRUNCATE of the audit log in the database itself', async () => {
    const q = h.svc.ctx.dbHandle.query.bind(h.svc.ctx.dbHandle);
    await expect(q("UPDATE admin.audit_log SET action = 'x'")).rejects.toThrow(/append-only/);
    await expect(q('DELETE FROM admin.audit_log')).rejects.toThrow(/append-only/);
    await expect(q('TRUNCATE admin.audit_log')).rejects.toThrow(/append-only/);
    expect(
      (await q<{ n: number }>('SELECT count(*)::int AS n FROM admin.audit_log'))[0]!.n,
    ).toBeGreaterThanOrEqual(6);
  });

  it('exports the log as CSV with every formula-looking cell neutralised', async () => {
    const testerId = randomUUID();
    const e = await publish('TesterApprovalChanged', testerId, {
      userId: testerId,
      email: 'x@gmail.com',
      name: 'X',
      approved: false,
      country: null,
      reason: 'admin',
      actorId: '=cmd|" /C calc"!A0',
    });
    await waitFor(() => handled(e.id), 'handled');
    const res = await call(h, 'GET', '/api/admin/audit.csv?action=tester.unapproved', { token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename=audit-\d{4}-\d{2}-\d{2}\.csv$/,
    );
    const lines = res.text.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).toBe('id,at,actor_id,action,target,details,correlation_id');
    expect(lines[1]).toContain(`,"'=cmd|"" /C calc""!A0",tester.unapproved,tester:${testerId},`);
    expect(lines.filter((l) => l.includes('=cmd') && !l.includes("'=cmd"))).toEqual([]);
  });

  it('answers 403 to every other role and 401 without a token', async () => {
    const poster = await h.issuer.mint({ type: 'poster' });
    const tester = await h.issuer.mint({ type: 'tester' });
    for (const path of ['/api/admin/audit', '/api/admin/audit.csv']) {
      expect((await call(h, 'GET', path, { token: poster })).status).toBe(403);
      expect((await call(h, 'GET', path, { token: tester })).status).toBe(403);
      expect((await call(h, 'GET', path)).status).toBe(401);
    }
  });
});
