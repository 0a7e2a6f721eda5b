/** The whole product over HTTP through the gateway: every service real, events on real Redis. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import type { AuditEntryDto, ClearJobsPreview } from '@htm/contracts';
import { checkResponses, responseMismatches, responsesChecked } from '@htm/service-kit';
import {
  client,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from './support/stack.js';

let stack: Stack;
let admin: Actor;
let poster: Actor;
let tester: Actor;

beforeAll(async () => {
  // Every 2xx JSON answer of the whole flow is checked against its operation's response schema.
  checkResponses();
  stack = await startStack({ label: 'flow' });
  admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'flow.poster@gmail.com');
  tester = await signInTester(stack, 'flow.tester@gmail.com', { admin });
});
afterAll(async () => {
  await stack?.stop();
});

async function submitDashboardWork(token: string, jobId: string, feedback: string) {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366aa' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.set('feedback_text', feedback);
  form.set('key_finding_1', 'Order button is below the fold');
  form.set('screenshot', new Blob([png], { type: 'image/png' }), 'shot.png');
  const res = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('a job from posting to the tester getting paid', () => {
  let jobId: string;

  it('is invisible to testers until paid, then listed for them', async () => {
    const posted = await client(stack, poster.token).post('/api/jobs', {
      title: 'Unpaid job',
      url: 'https://x.example',
      what_to_test: 'x',
      requirements: ['y'],
    });
    expect(posted.status).toBe(201);
    expect(posted.body.checkout_url).toBe(`/api/payments/local/checkout/${posted.body.session_id}`);
    const before = await client(stack, tester.token).get('/api/tester/available-jobs');
    expect(before.body.jobs.map((j: { id: string }) => j.id)).not.toContain(posted.body.job.id);

    ({ jobId } = await postAndPay(stack, poster));
    const status = await client(stack, poster.token).get(
      `/api/payments/checkout/status/${(await stack.sql<{ id: string }>('SELECT id FROM payments.checkout_sessions WHERE job_id = $1', [jobId]))[0].id}`,
    );
    expect(status.body.payment_status).toBe('paid');
    const after = await waitFor(async () => {
      const r = await client(stack, tester.token).get('/api/tester/available-jobs');
      return r.body.jobs.some((j: { id: string }) => j.id === jobId) ? r : undefined;
    }, 'the paid job in available-jobs');
    expect(after.status).toBe(200);
  });

  it('lets the tester claim and submit, and the poster sees a locked preview', async () => {
    const claim = await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`);
    expect(claim.status).toBe(200);
    expect(claim.body.job.status).toBe('claimed');
    const other = await signInTester(stack, 'flow.other@gmail.com', { admin });
    expect((await client(stack, other.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(409);

    const sub = await submitDashboardWork(
      tester.token,
      jobId,
      'The cake order flow works but the button is hard to find.',
    );
    expect(sub.status).toBe(201);
    const seen = await client(stack, poster.token).get(`/api/jobs/${jobId}/submission`);
    expect(seen.status).toBe(200);
    expect(seen.body.locked).toBe(true);
    expect(seen.body.human_preview.key_findings_bullets).toEqual([
      'Order button is below the fold',
    ]);
    expect(seen.body.general_feedback).toBeNull();
    expect((await client(stack, other.token).get(`/api/jobs/${jobId}/submission`)).status).toBe(
      403,
    );
  });

  it('goes through one revision, refuses reject and a second revision', async () => {
    const reject = await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, {
      decision: 'reject',
      reason: 'no',
    });
    expect(reject.status).toBe(400);
    expect(reject.body.detail).toBe('Rejection not supported in MVP. Request revision instead.');
    const rev = await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, {
      decision: 'request_revision',
      reason: 'Please check the checkout page too',
    });
    expect(rev.status).toBe(200);
    expect(rev.body).toMatchObject({ payment_processed: false, revision_count: 1 });
    const mine = await client(stack, tester.token).get('/api/tester/my-jobs');
    expect(mine.body.jobs.find((j: { id: string }) => j.id === jobId)).toMatchObject({
      status: 'revision_requested',
      last_review: { reason: 'Please check the checkout page too' },
    });
    const re = await submitDashboardWork(
      tester.token,
      jobId,
      'Checked the checkout page: the total is clear and payment works.',
    );
    expect(re.status).toBe(201);
    const again = await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, {
      decision: 'request_revision',
      reason: 'More',
    });
    expect(again.status).toBe(409);
  });

  it('pays the tester $0.82 and the platform $0.18 once the poster accepts', async () => {
    const accept = await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, {
      decision: 'accept',
    });
    expect(accept.status).toBe(200);
    expect(accept.body.payment_processed).toBe(true);
    const full = await client(stack, poster.token).get(`/api/jobs/${jobId}/submission`);
    expect(full.body.locked).toBe(false);
    expect(full.body.general_feedback).toContain('checkout page');
    const file = await fetch(`${stack.url}${full.body.file_urls![0]}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');

    const earnings = await waitFor(async () => {
      const r = await client(stack, tester.token).get('/api/tester/my-earnings');
      return r.body.jobs?.length ? r.body : undefined;
    }, 'the earning');
    expect(earnings).toMatchObject({
      total_usd: 0.82,
      pending_usd: 0.82,
      completed_jobs: 1,
      jobs: [{ job_id: jobId, amount: 0.82, status: 'accepted' }],
    });
    const overview = await client(stack, admin.token).get('/api/admin/financial-overview');
    expect(overview.body).toMatchObject({
      total_payments: 1,
      platform_earnings: 0.18,
      completed_jobs_count: 1,
      pending_payouts_count: 1,
    });
  });

  it('pays out a connected tester once, however often the admin runs payouts', async () => {
    expect(
      (await client(stack, tester.token).post('/api/tester/payout-account')).status,
    ).toBeLessThan(300);
    const run = await client(stack, admin.token).post('/api/admin/payouts/run');
    expect(run.status).toBe(200);
    expect(run.body.paid).toHaveLength(1);
    const rerun = await client(stack, admin.token).post('/api/admin/payouts/run');
    expect(rerun.body.paid).toHaveLength(0);
    const earnings = await client(stack, tester.token).get('/api/tester/my-earnings');
    expect(earnings.body).toMatchObject({
      total_usd: 0.82,
      pending_usd: 0,
      jobs: [{ status: 'paid' }],
    });
    const overview = await client(stack, admin.token).get('/api/admin/financial-overview');
    expect(overview.body).toMatchObject({ total_payouts: 0.82, pending_payouts_count: 0 });
  });

  it("analytics' insights (through the gateway, admin only) agree to the cent with the financial overview", async () => {
    const today = new Date();
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const range = `from=${day(new Date(today.getTime() - 86_400_000))}&to=${day(today)}`;
    const overview = (await client(stack, admin.token).get('/api/admin/financial-overview'))
      .body as unknown as Record<string, number>;
    const cents = (usd: number) => Math.round(usd * 100);
    // Analytics reads the streams on its own time: wait until it has seen the payout.
    const insights = await waitFor(async () => {
      const r = await client(stack, admin.token).get(`/api/admin/insights?${range}`);
      const b = r.body as unknown as { totals: Record<string, number> };
      return r.status === 200 && b.totals.payouts_cents === cents(overview.total_payouts)
        ? (r.body as unknown as Record<string, unknown> & {
            totals: Record<string, number>;
            funnel: Record<string, number>;
            days: Array<Record<string, number>>;
          })
        : undefined;
    }, 'insights with the payout');
    expect(insights.totals).toEqual({
      revenue_cents: cents(overview.total_payments),
      earnings_cents: 82 * overview.completed_jobs_count,
      platform_fee_cents: cents(overview.platform_earnings),
      payouts_cents: cents(overview.total_payouts),
      refunds_cents: cents(overview.total_refunds),
    });
    expect(insights.totals.revenue_cents).toBeGreaterThan(0);
    expect(insights.days.reduce((s, d) => s + d.revenue_cents, 0)).toBe(
      cents(overview.total_payments),
    );
    expect(insights.funnel.completed).toBe(overview.completed_jobs_count);
    expect((await client(stack, poster.token).get(`/api/admin/insights?${range}`)).status).toBe(
      403,
    );
    expect(
      (await client(stack, admin.token).get('/api/admin/insights?from=yesterday&to=today')).status,
    ).toBe(400);
  });

  it('clears every job through the admin service only with the confirmation of a preview, refunds the paid unfinished ones, and keeps an audit trail', async () => {
    const unconfirmed = await client(stack, admin.token).post('/api/admin/clear-jobs');
    expect(unconfirmed.status).toBe(400);
    const preview = await client(stack, admin.token).post('/api/admin/clear-jobs/preview');
    expect(preview.status).toBe(200);
    const p = preview.body as unknown as ClearJobsPreview;
    expect(p).toMatchObject({ jobs_total: 2, submissions: 2, paid_completed: 1 });
    const refunds = async () =>
      (
        (await client(stack, admin.token).get('/api/admin/financial-overview')).body as unknown as {
          total_refunds: number;
        }
      ).total_refunds;
    const refundsBefore = await refunds();
    const cleared = await client(stack, admin.token).post('/api/admin/clear-jobs', {
      confirmation: p.confirmation,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({
      jobs_deleted: 2,
      submissions_deleted: 2,
      refunded_jobs: p.paid_unfinished,
    });
    expect((await client(stack, poster.token).get('/api/jobs')).body.jobs).toEqual([]);
    // The paid jobs nobody finished are refunded by payments; completed ones keep their money.
    await waitFor(
      async () => (await refunds()) === refundsBefore + p.paid_unfinished_cents / 100,
      'the refunds',
    );
    // Every admin action of this flow is in the audit log, with the admin as actor.
    const audit = await waitFor(async () => {
      const r = (await client(stack, admin.token).get('/api/admin/audit?page_size=100'))
        .body as unknown as { entries?: AuditEntryDto[] };
      return r.entries?.some((e) => e.action === 'jobs.cleared') ? r.entries : undefined;
    }, 'the clear-all in the audit log');
    const actions = new Set(audit.map((e) => e.action));
    expect(actions).toEqual(new Set(['tester.approved', 'payout.sent', 'jobs.cleared']));
    expect(audit.every((e) => e.actor_id === admin.id)).toBe(true);
  });

  it('answered every 2xx JSON of the flow as its operation declares (no missing, mistyped or undeclared field)', () => {
    expect(responseMismatches).toEqual([]);
    expect(responsesChecked.size).toBeGreaterThan(20);
  });
});
