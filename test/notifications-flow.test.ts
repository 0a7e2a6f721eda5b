/**
 * E-mail through the whole product: every service real, events on real Redis, the
 * notifications service sending to a real SMTP server in this process. Each kind of message
 * is caused by an ordinary action through the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { startJobs } from '@htm/jobs';
import { startInbox, type Inbox } from '@htm/notifications/testing';
import {
  client,
  JOB,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from './support/stack.js';

let inbox: Inbox;
let stack: Stack;
let admin: Actor;
let poster: Actor;
let tester: Actor;

beforeAll(async () => {
  inbox = await startInbox();
  stack = await startStack({
    label: 'mailflow',
    env: {
      SMTP_URL: `smtp://127.0.0.1:${inbox.port}`,
      MAIL_POLL_MS: '100',
      AUTO_ACCEPT_AFTER_MS: '4000',
      PUBLIC_URL: 'http://app.example',
    },
  });
  admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'mailflow.poster@gmail.com');
  tester = await signInTester(stack, 'mailflow.tester@gmail.com', { admin });
});
afterAll(async () => {
  await stack?.stop();
  await inbox?.close();
});

async function submit(jobId: string) {
  const png = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.set('feedback_text', 'The order button is hard to find on a phone.');
  form.set('key_finding_1', 'Order button below the fold');
  form.set('screenshot', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'shot.png');
  const res = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tester.token}` },
    body: form,
  });
  expect(res.status).toBe(201);
}

const subjects = (email: string) => inbox.to(email).map((m) => m.subject);
const until = (email: string, subject: string) =>
  waitFor(() => subjects(email).includes(subject), `"${subject}" to ${email}`);

describe('a tester signup from the landing page', () => {
  it('is told it waits at the Tester Login, and gets the approval e-mail when the admin approves, before any sign-in', async () => {
    const email = 'mailflow.landing@gmail.com';
    const signup = await client(stack).post('/api/waitlist', { email, role: 'Tester (student)' });
    expect(signup.status).toBe(201);
    // Signing up again with another role is the same person: one signup per e-mail.
    const again = await client(stack).post('/api/waitlist', { email, role: 'Tester (9-to-5)' });
    expect(again.status).toBe(409);
    const login = () =>
      fetch(`${stack.url}/api/auth/dev/login?email=${encodeURIComponent(email)}&intent=tester`, {
        redirect: 'manual',
      }).then((r) => r.headers.get('location'));
    await waitFor(
      async () => (await login()) === '/#auth_error=tester_signup_pending',
      'the pending signup known to identity',
    );

    const list = await client(stack, admin.token).get(
      `/api/admin/waitlist?q=${encodeURIComponent(email)}`,
    );
    const entries = (list.body as unknown as { entries: Array<{ id: string }> }).entries;
    expect(entries).toHaveLength(1);
    const approve = await client(stack, admin.token).patch(`/api/admin/waitlist/${entries[0].id}`, {
      approved: true,
    });
    expect(approve.status).toBe(200);
    await until(email, "You're approved to test");
    const [mail] = inbox.to(email);
    expect(mail.text).toContain('http://app.example/login/tester');
    expect(mail.text).not.toMatch(/waiting/i);
    expect(mail.html).toContain('HumanTest');
    // Now the Tester Login lets her in.
    await waitFor(async () => /^\/#session_id=/.test((await login()) ?? ''), 'admitted');
  });
});

describe('e-mail from ordinary actions', () => {
  it('sends the poster a receipt with the date results are expected once the job is paid', async () => {
    const { jobId } = await postAndPay(stack, poster, {
      title: 'Receipt site',
      url: 'https://receipt.example',
      what_to_test: 'Checkout',
      requirements: ['Checkout works'],
    });
    await until(poster.email, 'Receipt: "Receipt site" is paid and live');
    const mail = inbox
      .to(poster.email)
      .find((m) => m.subject?.startsWith('Receipt: "Receipt site"'))!;
    expect(mail.text).toMatch(
      /Results expected by \w{3}, \w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M UTC\./,
    );
    expect(mail.text).toContain(`http://app.example/dashboard?job=${jobId}`);
  });

  it('tells the tester they are approved', async () => {
    await until(tester.email, "You're approved to test");
  });

  it('tells the poster a tester took the job and the results are in; the tester about the revision and the $0.82', async () => {
    const { jobId } = await postAndPay(stack, poster);
    expect((await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    await until(poster.email, 'A tester is on your job');
    // Each review right after its submission (the review window here is only AUTO_ACCEPT_AFTER_MS).
    await submit(jobId);
    expect(
      (
        await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, {
          decision: 'request_revision',
          reason: 'Check the cart too',
        })
      ).status,
    ).toBe(200);
    await until(poster.email, 'Your results are ready');
    await until(tester.email, 'The poster asked for a revision');
    await submit(jobId);
    expect(
      (await client(stack, poster.token).post(`/api/jobs/${jobId}/review`, { decision: 'accept' }))
        .status,
    ).toBe(200);
    await until(tester.email, 'You earned $0.82');
    const mail = inbox.to(poster.email).find((m) => m.subject === 'A tester is on your job')!;
    expect(mail.text).toContain(`http://app.example/dashboard?job=${jobId}`);
  });

  it('tells the poster when results were accepted automatically', async () => {
    const { jobId } = await postAndPay(stack, poster, {
      title: 'Second site',
      url: 'https://second.example',
      what_to_test: 'Sign up',
      requirements: ['Sign up works'],
    });
    expect((await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    await submit(jobId);
    await until(poster.email, 'Your results were accepted automatically');
  });

  it('tells the tester about each payout, once', async () => {
    expect(
      (await client(stack, tester.token).post('/api/tester/payout-account')).status,
    ).toBeLessThan(300);
    // Both earnings recorded by payments (the automatic acceptance reaches it as an event).
    await waitFor(
      async () =>
        (await client(stack, tester.token).get('/api/tester/my-earnings')).body.jobs?.length === 2,
      'both earnings',
    );
    const run = await client(stack, admin.token).post('/api/admin/payouts/run');
    expect(run.status).toBe(200);
    expect(run.body.paid).toHaveLength(2); // one payout per earning
    await waitFor(
      () => subjects(tester.email).filter((x) => x === 'You were paid $0.82').length === 2,
      'two payout e-mails',
    );
    expect(subjects(tester.email).filter((s) => s === 'You earned $0.82')).toHaveLength(2);
    expect(subjects(poster.email).filter((s) => s === 'Your results are ready')).toHaveLength(3);
  });
});

describe('a borderline report (#52 session checks)', () => {
  // The stack runs its jobs unchecked; here jobs runs with its checks on (as marketplace-flow does).
  let jobs: Awaited<ReturnType<typeof startJobs>>;
  let owner: Actor;
  let writer: Actor;
  beforeAll(async () => {
    // Signed in first: signInTester waits on the stack's jobs database handle.
    owner = await signInPoster(stack, 'mailflow.owner@gmail.com');
    writer = await signInTester(stack, 'mailflow.borderline@gmail.com', { admin });
    const port = Number(new URL(stack.env.JOBS_URL).port);
    await stack.jobs.stop();
    jobs = await startJobs({ ...stack.env, SESSION_CHECKS: 'on' }, { port, withWorker: true });
  });
  afterAll(async () => {
    await jobs?.stop();
  });

  /** A Quick report that answers only the first of the job's two things to check: one soft reason. */
  async function borderlineReport(
    title: string,
    feedback: string,
    finding: string,
  ): Promise<string> {
    const { jobId } = await postAndPay(stack, owner, { ...JOB, title });
    expect((await client(stack, writer.token).post(`/api/jobs/${jobId}/claim`)).status).toBe(200);
    const form = new FormData();
    form.set('feedback_text', feedback);
    form.set('key_finding_1', finding);
    form.set(
      'requirement_responses',
      JSON.stringify([{ requirement_index: 0, response_text: 'Yes, at the top of the page.' }]),
    );
    const res = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.token}` },
      body: form,
    });
    expect(res.status).toBe(201);
    // Checked: delivered to its owner with the warning.
    await waitFor(async () => {
      await jobs.sessionChecks.checkDue();
      const r = await client(stack, owner.token).get(`/api/jobs/${jobId}/submission`);
      return r.status === 200 && r.body.session_check?.verdict === 'borderline';
    }, 'the borderline report delivered');
    return jobId;
  }

  it('tells the tester what was borderline, that the report went out and that the owner may replace it; the one-click unsubscribe stops the next one', async () => {
    await borderlineReport(
      'Corner bakery',
      'The opening hours are only in the footer, and the phone number is not a link.',
      'Opening hours hidden in the footer',
    );
    const subject = 'Your report on "Corner bakery" was sent to the site owner, with a warning';
    await until(writer.email, subject);
    const mail = inbox.to(writer.email).find((m) => m.subject === subject)!;
    expect(mail.text).toContain('Some things to check have neither an answer nor a finding.');
    expect(mail.text).toContain('Yours was delivered to them');
    expect(mail.text).toContain('the site owner may ask for a free replacement by another tester');
    expect(mail.html).toContain('Some things to check have neither an answer nor a finding.');
    // The owner is told too, with the warning in their words.
    await until(owner.email, 'Your results are ready');

    // The tester's one-click unsubscribe (RFC 8058) switches this kind off.
    const listUnsubscribe = mail.headerLines.find((l) => l.key === 'list-unsubscribe')?.line ?? '';
    const link = new URL(/<(http[^>]+)>/.exec(listUnsubscribe)![1]);
    const off = await fetch(`${stack.url}${link.pathname}${link.search}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(off.status).toBe(200);
    expect(await off.json()).toEqual({ unsubscribed: true, kind: 'session_borderline' });
    const prefs = await client(stack, writer.token).get('/api/notifications/preferences');
    expect(
      (prefs.body as unknown as { preferences: Record<string, boolean> }).preferences,
    ).toMatchObject({
      session_borderline: false,
      session_held: true,
    });

    // The next borderline report: its e-mail is kept back, and says why.
    // (Its own words: the check compares a report with the tester's earlier ones.)
    const second = await borderlineReport(
      'Flower shop',
      'Choosing a bouquet took me three tries because the colour filter kept resetting itself.',
      'Colour filter resets after each choice',
    );
    const row = await waitFor(async () => {
      const [m] = await jobs.ctx.dbHandle.query<{ status: string; last_error: string | null }>(
        `SELECT status, last_error FROM notifications.messages
          WHERE kind = 'session_borderline' AND user_id = $1 AND data->>'jobId' = $2`,
        [writer.id, second],
      );
      return m && m.status !== 'pending' ? m : undefined;
    }, 'the second borderline e-mail handled');
    expect(row).toEqual({ status: 'suppressed', last_error: 'unsubscribed' });
    expect(subjects(writer.email).filter((s) => /with a warning$/.test(s ?? ''))).toHaveLength(1);
  });
});
