/** E-mails from the event stream, observed in a real SMTP session (smtp-server in this process). */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import { EXAMPLE_JOB } from '@htm/contracts/example-report';
import {
  knownUser,
  startHarness,
  startInbox,
  waitFor,
  type Harness,
  type Inbox,
} from './support.js';

let inbox: Inbox;
let h: Harness;

beforeAll(async () => {
  inbox = await startInbox();
  h = await startHarness('notif_smtp', {
    SMTP_URL: `smtp://127.0.0.1:${inbox.port}`,
    MAIL_UNKNOWN_RECIPIENT_ATTEMPTS: '3',
    // Digest rounds are run by the tests (svc.deps.digests.runOnce()), not by the clock.
    DIGEST_POLL_MS: '3600000',
  });
});
afterAll(async () => {
  await h?.close();
  await inbox?.close();
});

const now = () => new Date().toISOString();
/** A header's raw value as sent. */
const header = (m: ParsedMail, name: string) =>
  m.headerLines.find((l) => l.key === name)?.line.replace(/^[^:]+:\s*/, '');
const unsubscribeLink = (m: ParsedMail) =>
  /<(http[^>]+)>/.exec(header(m, 'list-unsubscribe') ?? '')?.[1];

async function mailsTo(email: string, n: number, what: string): Promise<ParsedMail[]> {
  return waitFor(() => (inbox.to(email).length >= n ? inbox.to(email) : undefined), what);
}

/** Jobs' WorkSubmitted of a job (of a pack's slot when `packId` is given). */
const submitted = (jobId: string, packId: string | null = null) =>
  h.publish('WorkSubmitted', jobId, {
    jobId,
    testerId: randomUUID(),
    submissionId: randomUUID(),
    revision: 0,
    submittedAt: now(),
    autoAcceptAt: now(),
    ...(packId ? { job: { ...EXAMPLE_JOB, id: jobId, pack_id: packId } } : {}),
  });

async function postedJob(poster: { id: string }, title: string): Promise<string> {
  const jobId = randomUUID();
  await h.publish('JobCreated', jobId, {
    jobId,
    posterId: poster.id,
    title,
    url: 'https://bakery.example',
    geoRule: 'us_pr',
    budgetCents: 100,
    expectedCompletionHours: 48,
  });
  return jobId;
}

describe('each kind of e-mail', () => {
  it('tells the poster and the tester what happened, in text and HTML, with a link and one-click unsubscribe', async () => {
    const poster = await knownUser(h, 'kinds.poster@gmail.com', 'Pat');
    const tester = await knownUser(h, 'kinds.tester@gmail.com', 'Tess');
    await h.publish('TesterApprovalChanged', tester.id, {
      userId: tester.id,
      email: tester.email,
      name: 'Tess',
      approved: true,
      country: 'US',
      location: 'USA',
      reason: 'admin',
    });
    const jobId = await postedJob(poster, 'Check my bakery site');
    await h.publish('JobClaimed', jobId, {
      jobId,
      testerId: tester.id,
      claimedAt: now(),
      deadlineAt: now(),
      by: 'tester',
    });
    await h.publish('WorkSubmitted', jobId, {
      jobId,
      testerId: tester.id,
      submissionId: randomUUID(),
      revision: 0,
      submittedAt: now(),
      autoAcceptAt: now(),
    });
    await h.publish('RevisionRequested', jobId, {
      jobId,
      testerId: tester.id,
      reason: 'Please check checkout too',
      requestedAt: now(),
      deadlineAt: now(),
    });
    await h.publish('SubmissionAccepted', jobId, {
      jobId,
      testerId: tester.id,
      posterId: poster.id,
      title: 'Check my bakery site',
      acceptedBy: 'auto',
      acceptedAt: now(),
    });
    await h.publish('TesterPaid', tester.id, {
      testerId: tester.id,
      payoutId: randomUUID(),
      amountCents: 82,
      jobIds: [jobId],
      paidAt: now(),
    });

    const posterMails = await mailsTo(poster.email, 3, 'three mails to the poster');
    const testerMails = await mailsTo(tester.email, 4, 'four mails to the tester');
    expect(posterMails.map((m) => m.subject).sort()).toEqual(
      [
        'A tester is on your job',
        'Your results are ready',
        'Your results were accepted automatically',
      ].sort(),
    );
    expect(testerMails.map((m) => m.subject).sort()).toEqual(
      [
        'The poster asked for a revision',
        "You're approved to test",
        'You earned $0.82',
        'You were paid $0.82',
      ].sort(),
    );

    for (const m of [...posterMails, ...testerMails]) {
      expect(m.text).toContain('http://app.example/dashboard');
      expect(m.html).toContain('href="http://app.example/dashboard');
      expect(unsubscribeLink(m)).toMatch(
        /^http:\/\/app\.example\/api\/notifications\/unsubscribe\?token=/,
      );
      expect(header(m, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
      expect(m.text).toContain(unsubscribeLink(m));
    }
    for (const m of [...posterMails, ...testerMails]) {
      // One brand everywhere; the HTML part is built from MJML (responsive, no MJML tag left).
      expect(m.from?.text).toContain('HumanTest');
      expect(m.text).toContain('your HumanTest account');
      expect(m.html).toContain('HumanTest');
      expect(m.html).not.toMatch(/<mj-|Human Website Testing/);
      expect(m.html).toMatch(/<meta name="viewport"/);
    }
    const claimed = posterMails.find((m) => m.subject === 'A tester is on your job')!;
    expect(claimed.text).toContain('Hi Pat,');
    // A tester with a country is sent to the jobs open to that country.
    const approvedMail = testerMails.find((m) => m.subject === "You're approved to test")!;
    expect(approvedMail.text).toContain('paid jobs open to testers in your country');
    expect(claimed.text).toContain(`http://app.example/dashboard?job=${jobId}`);
    expect(
      testerMails.find((m) => m.subject === 'The poster asked for a revision')!.text,
    ).toContain('Please check checkout too');
  });
});

async function handled(eventId: string): Promise<void> {
  await waitFor(
    async () =>
      (await h.sql('SELECT 1 FROM notifications.handled_events WHERE event_id = $1', [eventId]))
        .length > 0,
    'the event handled',
  );
}

describe('landing-page tester signups', () => {
  it('e-mails the approval when the admin approves (no account yet), without saying jobs are waiting, and not again at the first sign-in', async () => {
    const entryId = randomUUID();
    await h.publish('SignupApproved', entryId, {
      entryId,
      email: 'Landing.Tester@gmail.com',
      role: 'Tester (student)',
      approved: true,
    });
    const [mail] = await mailsTo('landing.tester@gmail.com', 1, 'the approval e-mail');
    expect(mail.subject).toBe("You're approved to test");
    expect(mail.text).toContain('Sign in at the Tester Login with this Gmail address');
    expect(mail.text).toContain('Go to the Tester Login: http://app.example/login/tester');
    expect(mail.text).not.toMatch(/waiting/i);
    expect(unsubscribeLink(mail)).toMatch(/\/api\/notifications\/unsubscribe\?token=/);

    // Later she signs in at the Tester Login: identity creates her approved (reason signup).
    const userId = randomUUID();
    await h.publish('UserSignedUp', userId, {
      userId,
      email: 'landing.tester@gmail.com',
      name: 'Lana',
    });
    const approval = await h.publish('TesterApprovalChanged', userId, {
      userId,
      email: 'landing.tester@gmail.com',
      name: 'Lana',
      approved: true,
      country: null,
      reason: 'signup',
    });
    await handled(approval.id);
    expect(
      await h.sql('SELECT 1 FROM notifications.messages WHERE user_id = $1', [userId]),
    ).toEqual([]);
    // A no-Gmail waitlist entry approved is not a tester signup: no e-mail.
    const other = randomUUID();
    const waitlist = await h.publish('SignupApproved', other, {
      entryId: other,
      email: 'no-gmail@example.com',
      role: 'tester',
      approved: true,
    });
    await handled(waitlist.id);
    expect(
      await h.sql(
        "SELECT 1 FROM notifications.messages WHERE user_id = 'signup:no-gmail@example.com'",
      ),
    ).toEqual([]);
    expect(inbox.to('landing.tester@gmail.com')).toHaveLength(1);
  });
});

describe('the poster receipt', () => {
  it('is e-mailed when the paid job goes live, with the date results are expected', async () => {
    const poster = await knownUser(h, 'receipt.poster@gmail.com', 'Rita');
    const jobId = await postedJob(poster, 'Check my cake shop');
    await h.publish('JobPublished', jobId, {
      jobId,
      posterId: poster.id,
      geoRule: 'us_pr',
      paidAt: '2026-11-26T10:00:00.000Z',
      title: 'Check my cake shop',
      expectedCompletionHours: 48,
    });
    const [mail] = await mailsTo(poster.email, 1, 'the receipt');
    expect(mail.subject).toBe('Receipt: "Check my cake shop" is paid and live');
    expect(mail.text).toContain(
      `We received your payment of $1.00 for "Check my cake shop" (job ${jobId.slice(0, 8)}).`,
    );
    // paid_at + 48 h to complete + 48 h to be claimed, as on the job card.
    expect(mail.text).toMatch(/Results expected by Mon, Nov 30, 2026, 10:00\sAM UTC\./);
    expect(mail.html).toMatch(/Results expected by Mon, Nov 30, 2026, 10:00\sAM UTC\./);
    expect(mail.text).toContain(`See your job: http://app.example/dashboard?job=${jobId}`);
  });
});

describe("a tester's claim that ran out of time", () => {
  it('tells the tester the job went back to the others (only for a claim timeout)', async () => {
    const poster = await knownUser(h, 'expired.poster@gmail.com');
    const tester = await knownUser(h, 'expired.tester@gmail.com', 'Eve');
    const jobId = await postedJob(poster, 'Slow job');
    const revision = await h.publish('JobReleased', jobId, {
      jobId,
      testerId: tester.id,
      reason: 'revision_expired',
    });
    await h.publish('JobReleased', jobId, { jobId, testerId: tester.id, reason: 'claim_timeout' });
    const [mail] = await mailsTo(tester.email, 1, 'the claim-expired e-mail');
    expect(mail.subject).toBe('Your claim ran out of time');
    expect(mail.text).toContain('Hi Eve,');
    expect(mail.text).toContain(
      'The time to submit your work on "Slow job" ran out, so the job went back to the other testers.',
    );
    expect(mail.text).toContain('Find another job: http://app.example/dashboard');
    expect(
      await h.sql('SELECT 1 FROM notifications.messages WHERE event_id = $1', [revision.id]),
    ).toEqual([]);
  });
});

describe('a name changed at sign-in', () => {
  it('is used by the next e-mail (UserRenamed)', async () => {
    const tester = await knownUser(h, 'renamed.tester@gmail.com', 'Old Name');
    const renamed = await h.publish('UserRenamed', tester.id, {
      userId: tester.id,
      email: tester.email,
      name: 'New Name',
      previousName: 'Old Name',
    });
    await handled(renamed.id);
    await h.publish('TesterPaid', tester.id, {
      testerId: tester.id,
      payoutId: randomUUID(),
      amountCents: 82,
      jobIds: [],
      paidAt: now(),
    });
    const [mail] = await mailsTo(tester.email, 1, 'the payout e-mail');
    expect(mail.text).toContain('Hi New Name,');
  });
});

describe('the job digest (opt-in)', () => {
  it('lists, at most once an hour, the new jobs a tester can take by geo, assistive tech, priority window and state', async () => {
    const poster = await knownUser(h, 'digest.poster@gmail.com');
    const canadian = await knownUser(h, 'digest.ca@gmail.com', 'Cleo');
    const quiet = await knownUser(h, 'digest.quiet@gmail.com', 'Quinn');
    for (const t of [canadian, quiet])
      await h.publish('TesterApprovalChanged', t.id, {
        userId: t.id,
        email: t.email,
        name: 'T',
        approved: true,
        country: 'CA',
        location: 'USA',
        assistiveTech: [],
        reason: 'admin',
      });
    const tokenOf = (t: { id: string; email: string }) =>
      h.issuer.mint({ id: t.id, email: t.email, type: 'tester' });
    const prefs = async (t: { id: string; email: string }, body?: unknown) =>
      (
        (await (
          await fetch(`${h.url}/api/notifications/preferences`, {
            method: body ? 'PATCH' : 'GET',
            headers: {
              authorization: `Bearer ${await tokenOf(t)}`,
              'content-type': 'application/json',
            },
            body: body ? JSON.stringify(body) : undefined,
          })
        ).json()) as { preferences: Record<string, boolean> }
      ).preferences;
    // Off until switched on.
    expect(await prefs(canadian)).toMatchObject({ job_digest: false, claim_expired: true });
    expect(await prefs(canadian, { job_digest: true })).toMatchObject({ job_digest: true });

    const ago = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
    const publish = async (
      title: string,
      extra: Partial<{
        geoRule: 'us_pr' | 'us_pr_ca' | 'global_beta';
        paidAt: string;
        assistiveTech: 'screen_reader';
      }> = {},
    ) => {
      const jobId = await postedJob(poster, title);
      const e = await h.publish('JobPublished', jobId, {
        jobId,
        posterId: poster.id,
        geoRule: extra.geoRule ?? 'us_pr_ca',
        paidAt: extra.paidAt ?? ago(30),
        title,
        expectedCompletionHours: 48,
        assistiveTech: extra.assistiveTech ?? null,
        freshEyes: false,
        siteHost: 'bakery.example',
      });
      await handled(e.id);
      return jobId;
    };
    await publish('Fits: US, PR and Canada');
    await publish('US and PR only', { geoRule: 'us_pr' });
    await publish('Needs a screen reader', { assistiveTech: 'screen_reader' });
    await publish('Still in its priority window', { paidAt: new Date().toISOString() });
    const taken = await publish('Already claimed');
    const claim = await h.publish('JobClaimed', taken, {
      jobId: taken,
      testerId: quiet.id,
      claimedAt: now(),
      deadlineAt: now(),
      by: 'tester',
    });
    await handled(claim.id);

    expect(await h.svc.deps.digests.runOnce()).toBe(1);
    const digests = () =>
      inbox.to(canadian.email).filter((m) => /you can take$/.test(m.subject ?? ''));
    const [digest] = await waitFor(() => (digests().length ? digests() : undefined), 'the digest');
    expect(digest.subject).toBe('A new job you can take');
    expect(digest.text).toContain('- Fits: US, PR and Canada');
    expect(digest.text).not.toMatch(/US and PR only|screen reader|priority window|Already claimed/);
    expect(digest.text).toContain('See available jobs: http://app.example/dashboard');
    expect(digest.html).toContain('<li>Fits: US, PR and Canada</li>');

    // Another job within the hour: no second digest yet.
    await publish('Second fitting job');
    expect(await h.svc.deps.digests.runOnce()).toBe(0);
    // An hour later: the next digest lists only what is new.
    await h.sql(
      "UPDATE notifications.users SET last_digest_at = now() - interval '61 minutes' WHERE id = $1",
      [canadian.id],
    );
    expect(await h.svc.deps.digests.runOnce()).toBe(1);
    const [, next] = await waitFor(
      () => (digests().length >= 2 ? digests() : undefined),
      'the second digest',
    );
    expect(next.text).toContain('- Second fitting job');
    expect(digests()).toHaveLength(2);
    expect(next.text).not.toContain('Fits: US, PR and Canada');
    // The tester who did not switch it on gets none.
    expect(inbox.to(quiet.email).filter((m) => /you can take$/.test(m.subject ?? ''))).toEqual([]);
  });
});

describe('webhooks', () => {
  it('tells the poster when one of their webhook endpoints was switched off', async () => {
    const poster = await knownUser(h, 'hooks.poster@gmail.com', 'Pia');
    const endpointId = randomUUID();
    await h.publish('WebhookEndpointDisabled', endpointId, {
      endpointId,
      ownerId: poster.id,
      url: 'https://hooks.example/in',
      failingSince: new Date(Date.now() - 72 * 3600_000).toISOString(),
      disabledAt: now(),
    });
    const [mail] = await mailsTo(poster.email, 1, 'the webhook e-mail');
    expect(mail.subject).toBe('We switched off one of your webhooks');
    expect(mail.text).toContain('Every delivery to https://hooks.example/in failed for 3 days');
    expect(mail.text).toContain('http://app.example/dashboard');
  });
});

describe('the results e-mail and the summary (issue #51)', () => {
  const summarized = (
    scope: 'job' | 'pack',
    scopeId: string,
    jobIds: string[],
    posterId: string,
    testersTotal: number,
    top: Array<[string, string | null, number]>,
  ) =>
    h.publish('ReportSummarized', scopeId, {
      scope,
      scopeId,
      jobIds,
      posterId,
      title: 'A shop',
      testersTotal,
      problems: top.length,
      top: top.map(([title, severity, testersHit]) => ({ title, severity, testersHit })),
      lastSubmissionAt: now(),
      summarizedAt: now(),
    });

  it("lists what to fix first once the report's summary is in, each problem linked to its place", async () => {
    const poster = await knownUser(h, 'summary.poster@gmail.com');
    const jobId = await postedJob(poster, 'Summarised shop');
    await submitted(jobId);
    await summarized('job', jobId, [jobId], poster.id, 1, [
      ['Checkout forces account creation', 'blocker', 1],
      ['The <logo> is blurry', 'cosmetic', 1],
    ]);
    const [mail] = await mailsTo(poster.email, 1, 'the results e-mail');
    expect(mail.subject).toBe('Your results are ready');
    expect(mail.text).toContain('Fix first:');
    expect(mail.text).toContain(
      `- Checkout forces account creation (Blocker, 1 of 1 tester): http://app.example/dashboard?job=${jobId}&problem=1`,
    );
    expect(mail.text).toContain(
      `- The <logo> is blurry (Cosmetic, 1 of 1 tester): http://app.example/dashboard?job=${jobId}&problem=2`,
    );
    expect(mail.html).toContain(
      `<a href="http://app.example/dashboard?job=${jobId}&amp;problem=2" style="color:#1e40af">The &lt;logo&gt; is blurry (Cosmetic, 1 of 1 tester)</a>`,
    );
  });

  it("of a pack's tester lists what the testers agree on (the pack's summary, not the slot's own)", async () => {
    const poster = await knownUser(h, 'summary.pack@gmail.com');
    const jobId = await postedJob(poster, 'Packed shop');
    const packId = randomUUID();
    await submitted(jobId, packId);
    // The slot's own summary comes first: the e-mail waits for the pack's.
    await summarized('job', jobId, [jobId], poster.id, 1, [
      ['Logo looks pixelated', 'cosmetic', 1],
    ]);
    await summarized('pack', packId, [randomUUID(), jobId], poster.id, 3, [
      ['Checkout forces account creation', 'blocker', 2],
      ['The pay button does nothing', 'blocker', 1],
      ['Price hidden until the cart', 'major', 2],
    ]);
    const [mail] = await mailsTo(poster.email, 1, 'the results e-mail');
    expect(mail.text).toContain('What your testers agree you should fix first:');
    expect(mail.text).toContain(
      `- Checkout forces account creation (Blocker, 2 of 3 testers): http://app.example/dashboard?pack=${packId}&problem=1`,
    );
    expect(mail.text).toContain('- Price hidden until the cart (Major, 2 of 3 testers)');
    expect(mail.text).not.toContain('pixelated');
  });
});

describe('redelivery', () => {
  it('sends one e-mail however often the same event arrives', async () => {
    const poster = await knownUser(h, 'redelivery.poster@gmail.com');
    const jobId = await postedJob(poster, 'Redelivered job');
    const claimed = await h.publish('JobClaimed', jobId, {
      jobId,
      testerId: randomUUID(),
      claimedAt: now(),
      deadlineAt: now(),
      by: 'tester',
    });
    await h.bus.publish([claimed, claimed]);
    // A later event of the same job (same stream partition, handled in order) marks the end.
    await submitted(jobId);
    const mails = await mailsTo(poster.email, 2, 'the claim and the results mails');
    expect(mails.map((m) => m.subject).sort()).toEqual([
      'A tester is on your job',
      'Your results are ready',
    ]);
    const rows = await h.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM notifications.messages WHERE event_id = $1',
      [claimed.id],
    );
    expect(rows[0].n).toBe(1);
  });
});

describe('old events', () => {
  it('queue no e-mail about events older than MAIL_MAX_EVENT_AGE_MS, and a never-known address is given up', async () => {
    const poster = await knownUser(h, 'old.poster@gmail.com');
    const jobId = await postedJob(poster, 'Old job');
    const old = await h.publish(
      'JobClaimed',
      jobId,
      { jobId, testerId: randomUUID(), claimedAt: now(), deadlineAt: now(), by: 'tester' },
      { occurredAt: new Date(Date.now() - 49 * 3600_000) },
    );
    const stranger = randomUUID(); // identity never announced this account
    const paid = await h.publish('TesterPaid', stranger, {
      testerId: stranger,
      payoutId: randomUUID(),
      amountCents: 82,
      jobIds: [],
      paidAt: now(),
    });
    await submitted(jobId);
    await mailsTo(poster.email, 1, 'the results mail');
    expect(inbox.to(poster.email).map((m) => m.subject)).toEqual(['Your results are ready']);
    expect(
      await h.sql('SELECT 1 FROM notifications.messages WHERE event_id = $1', [old.id]),
    ).toEqual([]);
    const given = await waitFor(async () => {
      const [row] = await h.sql<{ status: string; attempts: number }>(
        'SELECT status, attempts FROM notifications.messages WHERE event_id = $1',
        [paid.id],
      );
      return row?.status === 'suppressed' ? row : undefined;
    }, 'the message to the unknown address given up');
    expect(given.attempts).toBe(2);
  });
});

describe('SMTP down', () => {
  it('keeps the e-mail, retries with growing delays, and sends it once SMTP is back', async () => {
    const tester = await knownUser(h, 'down.tester@gmail.com');
    await inbox.down();
    try {
      const paid = await h.publish('TesterPaid', tester.id, {
        testerId: tester.id,
        payoutId: randomUUID(),
        amountCents: 164,
        jobIds: [],
        paidAt: now(),
      });
      const failing = await waitFor(async () => {
        const [row] = await h.sql<{ attempts: number; status: string; last_error: string }>(
          'SELECT attempts, status, last_error FROM notifications.messages WHERE event_id = $1',
          [paid.id],
        );
        return row && row.attempts >= 3 ? row : undefined;
      }, 'three failed attempts');
      expect(failing.status).toBe('pending');
      expect(failing.last_error).toMatch(/ECONNREFUSED|connect/i);
    } finally {
      await inbox.up();
    }
    const [mail] = await mailsTo(tester.email, 1, 'the mail after SMTP came back');
    expect(mail.subject).toBe('You were paid $1.64');
    expect(inbox.to(tester.email)).toHaveLength(1);
  });
});

describe('unsubscribed user', () => {
  it('gets no e-mail of a kind switched off with the one-click link, and the profile shows it off', async () => {
    const poster = await knownUser(h, 'unsub.poster@gmail.com');
    const jobId = await postedJob(poster, 'First job');
    await h.publish('JobClaimed', jobId, {
      jobId,
      testerId: randomUUID(),
      claimedAt: now(),
      deadlineAt: now(),
      by: 'tester',
    });
    const [first] = await mailsTo(poster.email, 1, 'the first claim mail');

    const link = new URL(unsubscribeLink(first)!);
    const token = await h.issuer.mint({ id: poster.id, email: poster.email, type: 'poster' });
    const preferences = async () =>
      (
        (await (
          await fetch(`${h.url}/api/notifications/preferences`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).json()) as { preferences: Record<string, boolean> }
      ).preferences;

    // Opening the link (a person, or a mail scanner following it) only asks.
    const ask = await fetch(`${h.url}${link.pathname}${link.search}`);
    expect(ask.status).toBe(200);
    expect(ask.headers.get('content-type')).toMatch(/^text\/html/);
    expect(ask.headers.get('content-security-policy')).toMatch(/form-action 'self'/);
    const askHtml = await ask.text();
    expect(askHtml).toContain('<title>E-mail settings</title>');
    expect(askHtml).toContain('name="viewport"');
    expect(askHtml).toContain('<p class="brand">HumanTest</p>');
    expect(askHtml).toContain('You will no longer get the e-mail “A tester is on your job”');
    expect(askHtml).toContain(
      `<form method="post" action="${link.pathname}${link.search.replace(/&/g, '&amp;')}"><button type="submit">Unsubscribe</button></form>`,
    );
    expect(await preferences()).toMatchObject({ job_claimed: true });

    // RFC 8058: the mail client POSTs to the List-Unsubscribe URL (here straight to the service).
    const one = await fetch(`${h.url}${link.pathname}${link.search}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual({ unsubscribed: true, kind: 'job_claimed' });
    // The page's button: a browser's form POST gets a page.
    const page = await fetch(`${h.url}${link.pathname}${link.search}`, {
      method: 'POST',
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(page.status).toBe(200);
    const done = await page.text();
    expect(done).toContain('<title>E-mail settings</title>');
    expect(done).toContain('You are unsubscribed');

    expect(await preferences()).toMatchObject({ job_claimed: false, work_submitted: true });

    const second = await postedJob(poster, 'Second job');
    const claimed = await h.publish('JobClaimed', second, {
      jobId: second,
      testerId: randomUUID(),
      claimedAt: now(),
      deadlineAt: now(),
      by: 'tester',
    });
    await h.publish('WorkSubmitted', second, {
      jobId: second,
      testerId: randomUUID(),
      submissionId: randomUUID(),
      revision: 0,
      submittedAt: now(),
      autoAcceptAt: now(),
    });
    await mailsTo(poster.email, 2, 'the results mail');
    await waitFor(
      async () =>
        (
          await h.sql<{ status: string }>(
            'SELECT status FROM notifications.messages WHERE event_id = $1',
            [claimed.id],
          )
        )[0]?.status === 'suppressed',
      'the claim mail suppressed',
    );
    expect(inbox.to(poster.email).map((m) => m.subject)).toEqual([
      'A tester is on your job',
      'Your results are ready',
    ]);
  });

  it('refuses a forged unsubscribe token and changes nothing', async () => {
    const poster = await knownUser(h, 'forged.poster@gmail.com');
    const forged = `${Buffer.from(`${poster.id}|work_submitted`).toString('base64url')}.AAAA`;
    for (const token of [forged, '']) {
      // In a browser (which asks for HTML): a page, not JSON.
      const r = await fetch(`${h.url}/api/notifications/unsubscribe?token=${token}`, {
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      });
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await r.text();
      expect(html).toContain('<title>E-mail settings</title>');
      expect(html).toContain('This unsubscribe link is not valid.');
      const button = await fetch(`${h.url}/api/notifications/unsubscribe?token=${token}`, {
        method: 'POST',
        headers: { accept: 'text/html' },
      });
      expect(button.status).toBe(400);
      expect(await button.text()).toContain('This unsubscribe link is not valid.');
    }
    // A client that does not ask for a page (a scanner, curl): the error shape.
    const scanner = await fetch(`${h.url}/api/notifications/unsubscribe?token=${forged}`);
    expect(scanner.status).toBe(400);
    expect(await scanner.json()).toMatchObject({ code: 'invalid_token' });
    // The mail client's one-click POST: the error shape.
    const oneClick = await fetch(`${h.url}/api/notifications/unsubscribe?token=${forged}`, {
      method: 'POST',
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(oneClick.status).toBe(400);
    expect(await oneClick.json()).toMatchObject({
      code: 'invalid_token',
      detail: 'This unsubscribe link is not valid.',
    });
    expect(
      await h.sql('SELECT * FROM notifications.preferences WHERE user_id = $1', [poster.id]),
    ).toEqual([]);
  });
});

describe('preferences', () => {
  it('switches kinds on and off per user and refuses unknown kinds with 400', async () => {
    const token = await h.issuer.mint({ type: 'tester' });
    const call = (method: string, body?: unknown) =>
      fetch(`${h.url}/api/notifications/preferences`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const off = await call('PATCH', { tester_paid: false });
    expect(off.status).toBe(200);
    expect(
      ((await off.json()) as { preferences: Record<string, boolean> }).preferences,
    ).toMatchObject({ tester_paid: false, submission_accepted: true });
    const bad = await call('PATCH', { tester_paid: 'no', newsletter: true });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      code: 'validation_error',
      errors: { tester_paid: ['Must be true or false'] },
    });
    const on = await call('PATCH', { tester_paid: true });
    expect(
      ((await on.json()) as { preferences: Record<string, boolean> }).preferences.tester_paid,
    ).toBe(true);
    expect((await fetch(`${h.url}/api/notifications/preferences`)).status).toBe(401);
  });
});
