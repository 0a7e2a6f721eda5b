/** The whole product over HTTP through the gateway: every service real, events on real Redis. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { EventEnvelope } from '@htm/events';
import { startJobs } from '@htm/jobs';
import type {
  AuditEntryDto,
  ClearJobsPreview,
  ReportSummary,
  TesterSessionChecks,
} from '@htm/contracts';
import { checkResponses, responseMismatches, responsesChecked } from '@htm/service-kit';
import {
  client,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  JOB,
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

describe('a report that fails its session check is replaced at no cost (#52)', () => {
  // This file's other flows run unchecked; here jobs runs with its checks on (short recordings
  // are enough, and a silent test pattern counts as talking enough).
  let jobs: Awaited<ReturnType<typeof startJobs>>;
  let port: number;
  let checksOn: Record<string, string>;
  let first: Actor;
  let second: Actor;
  let appellant: Actor;
  let late: Actor;
  beforeAll(async () => {
    // Signed in first: signInTester waits on the stack's jobs database handle.
    first = await signInTester(stack, 'flow.check1@gmail.com', { admin });
    second = await signInTester(stack, 'flow.check2@gmail.com', { admin });
    appellant = await signInTester(stack, 'flow.check3@gmail.com', { admin });
    late = await signInTester(stack, 'flow.check4@gmail.com', { admin });
    port = Number(new URL(stack.env.JOBS_URL).port);
    checksOn = {
      ...stack.env,
      SESSION_CHECKS: 'on',
      SESSION_CHECK_MIN_RECORDING_MS: '500',
      SESSION_CHECK_MIN_TALK_PCT: '0',
    };
    await stack.jobs.stop();
    jobs = await startJobs(checksOn, { port, withWorker: true });
  });
  afterAll(async () => {
    await jobs?.stop();
  });
  // The stack's own SQL helper used the stopped jobs service's pool.
  const sql: Stack['sql'] = (text, params) => jobs.ctx.dbHandle.query(text, params);
  const mailTo = async (email: string) => {
    const r = await fetch(`${stack.url}/api/dev/mail?to=${encodeURIComponent(email)}`);
    return ((await r.json()) as { messages: Array<{ subject: string; text?: string }> }).messages;
  };
  const resultsReady = async () =>
    (await mailTo(poster.email)).filter((m) => m.subject === 'Your results are ready');
  const ledgerOf = (jobId: string) =>
    waitFor(async () => {
      const rows = await sql<{ kind: string; amount_cents: number; tester_id: string | null }>(
        'SELECT kind, amount_cents, tester_id FROM payments.ledger_entries WHERE job_id = $1 ORDER BY kind',
        [jobId],
      );
      return rows.some((r) => r.kind === 'tester_earning') ? rows : undefined;
    }, 'the tester earning');

  /** The Quick report's answers to JOB's two things to check. */
  const answers = (first: string, second: string) =>
    JSON.stringify([
      { requirement_index: 0, response_text: first },
      { requirement_index: 1, response_text: second },
    ]);
  /** Submit Work (Quick report) with these fields; the answer's status. */
  const submitFields = async (token: string, jobId: string, fields: Record<string, string>) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    const r = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    return r.status;
  };

  it('holds each report until checked, reopens a failed one on the same payment across a restart, pays only the second tester', async () => {
    const readyBefore = (await resultsReady()).length;
    const { jobId } = await postAndPay(stack, poster, {
      ...JOB,
      title: 'Record your visit to my bakery',
      recording_required: true,
    });
    expect((await client(stack, first.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    // No recording, though the job asks for one: the check will fail it.
    expect(
      (
        await submitDashboardWork(
          first.token,
          jobId,
          'I ordered a cake and the checkout page asked for my phone number twice.',
        )
      ).status,
    ).toBe(201);
    // Until its check, the report is not the poster's to see.
    const early = await client(stack, poster.token).get(`/api/jobs/${jobId}/submission`);
    expect(early.status).toBe(404);
    expect(early.body.code).toBe('report_checking');

    // The jobs service restarts before the check ran: the pending check survives in the database.
    await jobs.stop();
    jobs = await startJobs(checksOn, { port, withWorker: true });
    await waitFor(async () => {
      await jobs.sessionChecks.checkDue();
      const r = await client(stack, poster.token).get('/api/jobs');
      return r.body.jobs.find((j: { id: string }) => j.id === jobId)?.status === 'open';
    }, 'the failed check to reopen the job');
    // The held report never reaches the poster: not through the API, not by e-mail.
    const seen = await client(stack, poster.token).get(`/api/jobs/${jobId}/submission`);
    expect(seen.status).toBe(404);
    const mail = await waitFor(async () => {
      const m = await mailTo(poster.email);
      return m.some((x) => /at no cost to you/.test(x.subject)) ? m : undefined;
    }, 'the replacement e-mail to the poster');
    expect(mail.filter((x) => /at no cost to you/.test(x.subject))).toHaveLength(1);
    expect(await resultsReady()).toHaveLength(readyBefore);
    // The tester reads why.
    const why = (await client(stack, first.token).get('/api/tester/session-checks'))
      .body as unknown as TesterSessionChecks;
    expect(why.checks[0]).toMatchObject({
      job_id: jobId,
      verdict: 'fail',
      held: true,
      reasons: [
        {
          code: 'no_recording',
          text: 'The job asked for a screen recording and none was attached.',
        },
        {
          code: 'unanswered',
          text: 'Some things to check have neither an answer nor a finding.',
        },
      ],
    });

    // Another tester takes it, with a recording of their own and every thing checked.
    expect((await client(stack, second.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    const clip = path.join(mkdtempSync(path.join(tmpdir(), 'flow-rec-')), 'clip.webm');
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi'],
      ...['-i', 'testsrc=duration=1:size=160x120:rate=10', '-c:v', 'libvpx', '-live', '1', clip],
    ]);
    const webm = readFileSync(clip);
    const b64 = (v: string) => Buffer.from(v).toString('base64');
    const tus = (method: string, url: string, headers: Record<string, string>, body?: Buffer) =>
      fetch(`${stack.url}${url}`, {
        method,
        headers: {
          'Tus-Resumable': '1.0.0',
          authorization: `Bearer ${second.token}`,
          ...headers,
        },
        body: body ? new Uint8Array(body) : undefined,
      });
    const created = await tus('POST', '/api/recordings', {
      'Upload-Metadata': `job_id ${b64(jobId)},filetype ${b64('video/webm')}`,
      'Upload-Length': String(webm.length),
    });
    expect(created.status).toBe(201);
    const loc = created.headers.get('location')!;
    const patch = await tus(
      'PATCH',
      loc,
      { 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
      webm,
    );
    expect(patch.status).toBe(204);
    const rec = { id: loc.split('/').pop()! };
    expect(
      await submitFields(second.token, jobId, {
        feedback_text:
          'Ordering worked on my phone; the delivery date picker was hard to use with one thumb.',
        key_finding_1: 'Date picker too small on a phone',
        requirement_responses: answers(
          'Top right, a pink Order button.',
          'Yes, each cake shows its price and size.',
        ),
        recording_id: rec.id,
      }),
    ).toBe(201);
    // Held until its check passes; then the poster reads it, with its Checked line, and is told once.
    expect(
      (
        await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, {
          decision: 'accept',
        })
      ).status,
    ).toBe(409);
    const report = await waitFor(async () => {
      await jobs.sessionChecks.checkDue();
      const r = await client(stack, poster.token).get(`/api/jobs/${jobId}/submission`);
      return r.status === 200 ? r.body : undefined;
    }, 'the second report delivered');
    expect(report.session_check).toMatchObject({
      status: 'done',
      verdict: 'pass',
      line: expect.stringMatching(
        /^0:01 recorded, \d+% talking, 2 of 2 things checked, original text$/,
      ),
    });
    await waitFor(
      async () => (await resultsReady()).length === readyBefore + 1,
      'the results-ready e-mail for the delivered report',
    );
    const accept = await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, {
      decision: 'accept',
    });
    expect(accept.status).toBe(200);
    const ledger = await ledgerOf(jobId);
    // Paid once, the failing tester unpaid, the second tester $0.82: exact to the cent.
    expect(ledger).toEqual([
      { kind: 'payment', amount_cents: 100, tester_id: null },
      { kind: 'platform_fee', amount_cents: 18, tester_id: null },
      { kind: 'tester_earning', amount_cents: 82, tester_id: second.id },
    ]);
    const unpaid = (await client(stack, first.token).get('/api/tester/my-earnings'))
      .body as unknown as { jobs: Array<{ job_id: string }> };
    expect(unpaid.jobs.find((j) => j.job_id === jobId)).toBeUndefined();
    expect(await resultsReady()).toHaveLength(readyBefore + 1);
  });

  it("gives a failed report back to its owner when the tester's appeal is accepted, and pays its tester $0.82 once accepted", async () => {
    // The tester's own report on another job first, then the same words again: the check calls it a copy.
    const fields = {
      feedback_text:
        'The cake page loads slowly on my phone and the order button sits under the cookie banner.',
      key_finding_1: 'Order button hidden under the cookie banner',
      requirement_responses: answers(
        'Under the cookie banner, bottom right.',
        'Prices are shown, delivery is not.',
      ),
    };
    const { jobId: earlier } = await postAndPay(stack, poster, { ...JOB, title: 'Earlier job' });
    const { jobId } = await postAndPay(stack, poster, { ...JOB, title: 'Appeal my bakery check' });
    for (const id of [earlier, jobId]) {
      expect((await client(stack, appellant.token).post(`/api/jobs/${id}/claim`)).status).toBe(200);
      expect(await submitFields(appellant.token, id, fields)).toBe(201);
      await waitFor(async () => (await jobs.sessionChecks.checkDue()) === 0, `${id} checked`);
    }
    const reopened = await waitFor(async () => {
      const r = await client(stack, poster.token).get('/api/jobs');
      const j = r.body.jobs.find((x: { id: string }) => x.id === jobId);
      return j?.status === 'open' ? j : undefined;
    }, 'the copy held and its job open again');
    expect(reopened.tester_id).toBeNull();

    // The tester's one appeal; the admin's queue shows it beside the measurements.
    const marks = (await client(stack, appellant.token).get('/api/appeals')).body as unknown as {
      items: Array<{ job_id: string; kind: string }>;
    };
    expect(marks.items.find((m) => m.job_id === jobId)?.kind).toBe('session_check');
    const filed = await client(stack, appellant.token).post('/api/appeals', {
      job_id: jobId,
      kind: 'session_check',
      message: 'The other report is mine from a different shop; I wrote both myself.',
    });
    expect(filed.status).toBe(201);
    const queue = (await client(stack, admin.token).get('/api/admin/session-checks'))
      .body as unknown as {
      sessions: Array<{ job_id: string; appeal: { status: string } | null }>;
    };
    expect(queue.sessions.find((x) => x.job_id === jobId)?.appeal).toMatchObject({
      status: 'open',
    });
    const decided = await client(stack, admin.token).post(
      `/api/admin/appeals/${(filed.body.appeal as { id: string }).id}/decision`,
      { decision: 'overturn' },
    );
    expect(decided.status).toBe(200);

    // Released: the job took the report back (nobody had claimed the replacement); its owner reads it.
    const report = await client(stack, poster.token).get(`/api/jobs/${jobId}/submission`);
    expect(report.status).toBe(200);
    expect(report.body.human_preview.key_findings_bullets).toEqual([
      'Order button hidden under the cookie banner',
    ]);
    const told = await waitFor(async () => {
      const m = await mailTo(appellant.email);
      return m.find((x) => /Your appeal was accepted/.test(x.subject));
    }, "the tester's appeal e-mail");
    expect(told.subject).toBe('Your appeal was accepted: your report counts after all');
    const accept = await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, {
      decision: 'accept',
    });
    expect(accept.status).toBe(200);
    expect(await ledgerOf(jobId)).toEqual([
      { kind: 'payment', amount_cents: 100, tester_id: null },
      { kind: 'platform_fee', amount_cents: 18, tester_id: null },
      { kind: 'tester_earning', amount_cents: 82, tester_id: appellant.id },
    ]);
    const audit = await waitFor(async () => {
      const r = (await client(stack, admin.token).get('/api/admin/audit?page_size=100'))
        .body as unknown as { entries?: AuditEntryDto[] };
      return r.entries?.find((e) => e.action === 'appeal.overturned');
    }, 'the appeal in the audit log');
    expect(audit).toMatchObject({ actor_id: admin.id, target: `tester:${appellant.id}` });
  });
  it('pays the appellant $0.82 from the platform when the appeal is upheld after another tester completed the job: the owner pays once', async () => {
    const fields = {
      feedback_text:
        'The florist page hides its delivery fee until the last step, which felt like a trick on a phone.',
      key_finding_1: 'Delivery fee shown only at the last step',
      requirement_responses: answers(
        'Top of the page, a green Order button.',
        'Prices yes, fees no.',
      ),
    };
    const { jobId: earlier } = await postAndPay(stack, poster, {
      ...JOB,
      title: 'Earlier florist',
    });
    const { jobId } = await postAndPay(stack, poster, { ...JOB, title: 'Late appeal florist' });
    for (const id of [earlier, jobId]) {
      expect((await client(stack, late.token).post(`/api/jobs/${id}/claim`)).status).toBe(200);
      expect(await submitFields(late.token, id, fields)).toBe(201);
      await waitFor(async () => (await jobs.sessionChecks.checkDue()) === 0, `${id} checked`);
    }
    await waitFor(async () => {
      const r = await client(stack, poster.token).get('/api/jobs');
      return r.body.jobs.find((x: { id: string }) => x.id === jobId)?.status === 'open';
    }, 'the copy held and its job open again');

    // Another tester takes the replacement and the owner accepts their report: the $1 pays them.
    expect((await client(stack, second.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    expect(
      await submitFields(second.token, jobId, {
        feedback_text:
          'Choosing a bouquet was easy, but the card message box cut my text off at forty letters.',
        key_finding_1: 'Card message limited to forty letters',
        requirement_responses: answers('Bottom of each bouquet.', 'Yes, with the size beside it.'),
      }),
    ).toBe(201);
    await waitFor(async () => {
      await jobs.sessionChecks.checkDue();
      return (
        (await client(stack, poster.token).get(`/api/jobs/${jobId}/submission`)).status === 200
      );
    }, 'the replacement report delivered');
    expect(
      (await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, { decision: 'accept' }))
        .status,
    ).toBe(200);
    await ledgerOf(jobId);

    // The failed tester's one appeal, upheld by the admin after the job is done.
    const filed = await client(stack, late.token).post('/api/appeals', {
      job_id: jobId,
      kind: 'session_check',
      message: 'The earlier report was mine too, about a different florist; I wrote both.',
    });
    expect(filed.status).toBe(201);
    const appealId = (filed.body.appeal as { id: string }).id;
    const decided = await client(stack, admin.token).post(
      `/api/admin/appeals/${appealId}/decision`,
      {
        decision: 'overturn',
      },
    );
    expect(decided.status).toBe(200);
    // Deciding again changes nothing.
    const again = await client(stack, admin.token).post(`/api/admin/appeals/${appealId}/decision`, {
      decision: 'overturn',
    });
    expect([again.status, again.body.code]).toEqual([409, 'appeal_decided']);

    type Row = {
      kind: string;
      amount_cents: number;
      tester_id: string | null;
      source: string | null;
    };
    const rows = () =>
      sql<Row>(
        `SELECT kind, amount_cents, tester_id, source FROM payments.ledger_entries
          WHERE job_id = $1 ORDER BY kind, source NULLS FIRST`,
        [jobId],
      );
    const exact: Row[] = [
      { kind: 'payment', amount_cents: 100, tester_id: null, source: null },
      { kind: 'platform_fee', amount_cents: 18, tester_id: null, source: null },
      { kind: 'tester_earning', amount_cents: 82, tester_id: second.id, source: null },
      {
        kind: 'tester_earning',
        amount_cents: 82,
        tester_id: late.id,
        source: 'platform: upheld session appeal',
      },
    ];
    await waitFor(async () => (await rows()).length === 4, "the appellant's earning");
    expect(await rows()).toEqual(exact);
    // Paid once by the owner ($1.00); the platform's net on this job: 100 - 82 - 82 = -64 cents.
    const net = (r: Row[]) =>
      r.reduce(
        (n, x) =>
          n +
          (x.kind === 'payment'
            ? x.amount_cents
            : x.kind === 'tester_earning'
              ? -x.amount_cents
              : 0),
        0,
      );
    expect(net(await rows())).toBe(-64);

    // A redelivered SessionDecided (its handled mark lost) books nothing twice.
    const [decidedEvent] = (
      await sql<{ envelope: EventEnvelope<'SessionDecided'> }>(
        `SELECT envelope FROM jobs.outbox WHERE type = 'SessionDecided' AND subject = $1`,
        [jobId],
      )
    ).map((r) => r.envelope);
    expect(decidedEvent.data).toMatchObject({ testerId: late.id, by: 'appeal', delivered: false });
    await sql('DELETE FROM payments.handled_events WHERE event_id = $1', [decidedEvent.id]);
    await jobs.ctx.bus.publish([decidedEvent]);
    await waitFor(
      async () =>
        (await sql('SELECT 1 FROM payments.handled_events WHERE event_id = $1', [decidedEvent.id]))
          .length === 1,
      'the redelivered event handled',
    );
    expect(await rows()).toEqual(exact);

    // The owner reads both reports: the one they accepted, and the released one, whole, free.
    const released = await client(stack, poster.token).get(`/api/jobs/${jobId}/released-reports`);
    expect(released.status).toBe(200);
    const reports = (released.body as unknown as { reports: Array<Record<string, unknown>> })
      .reports;
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      locked: false,
      general_feedback: fields.feedback_text,
      human_preview: { key_findings_bullets: ['Delivery fee shown only at the last step'] },
    });
    const current = await client(stack, poster.token).get(`/api/jobs/${jobId}/submission`);
    expect(current.body.human_preview.key_findings_bullets).toEqual([
      'Card message limited to forty letters',
    ]);
    expect(
      (await client(stack, second.token).get(`/api/jobs/${jobId}/released-reports`)).status,
    ).toBe(403);
    // The job's summary counts the released report too: its tester and its finding, as proof.
    const releasedId = reports[0].id as string;
    const summary = await waitFor(
      async () => {
        const r = await client(stack, poster.token).get(`/api/jobs/${jobId}/summary`);
        const s = r.body as unknown as ReportSummary;
        return r.status === 200 &&
          s.problems?.some((p) => p.evidence.some((e) => e.submission_id === releasedId))
          ? s
          : undefined;
      },
      "the job's summary with the released report",
      90_000,
    );
    expect(summary.problems.map((p) => p.testers_total)).toEqual(summary.problems.map(() => 2));
    // The owner is told once, in plain words, that it costs them nothing.
    const extra = 'One more report on "Late appeal florist", at no cost to you';
    const told = await waitFor(async () => {
      const m = (await mailTo(poster.email)).filter((x) => x.subject === extra);
      return m.length ? m : undefined;
    }, "the owner's e-mail about the released report");
    expect(told).toHaveLength(1);
    expect(told[0].text).toMatch(/Nothing is charged: we pay its tester\./);

    // The appellant's earnings show the job; the admin's overview shows what the platform paid.
    const earned = (await client(stack, late.token).get('/api/tester/my-earnings'))
      .body as unknown as {
      jobs: Array<{ job_id: string }>;
    };
    expect(earned.jobs.filter((j) => j.job_id === jobId)).toHaveLength(1);
    const overview = (await client(stack, admin.token).get('/api/admin/financial-overview'))
      .body as unknown as { platform_funded_earnings: number; platform_funded_count: number };
    expect(overview.platform_funded_count).toBeGreaterThanOrEqual(1);
    expect(overview.platform_funded_earnings).toBeCloseTo(overview.platform_funded_count * 0.82, 2);
  }, 180_000);
});
