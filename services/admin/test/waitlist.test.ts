import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TESTER_SIGNUP_ROLES, WAITLIST_MESSAGES } from '@htm/contracts';
import { call, startHarness, waitForEvent, type AdminHarness } from './support.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness('admin_waitlist');
});
afterAll(async () => {
  await h?.close();
});

const rowsFor = (email: string) =>
  h.svc.ctx.dbHandle.query<{
    email: string;
    role: string;
    kind: string;
    name: string | null;
    url: string | null;
    note: string | null;
    approved: boolean;
    user_id: string | null;
  }>(
    'SELECT email, role, kind, name, url, note, approved, user_id FROM admin.waitlist_entries WHERE email = $1 ORDER BY seq',
    [email],
  );
const countAll = async () =>
  (
    await h.svc.ctx.dbHandle.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM admin.waitlist_entries',
    )
  )[0].n;

describe('POST /api/waitlist: tester signup', () => {
  it('stores a tester signup with a trimmed, lowercased e-mail and announces WaitlistJoined', async () => {
    const res = await call(h, 'POST', '/api/waitlist', {
      body: {
        email: '  Ann.Student@Gmail.COM ',
        role: 'Tester (student)',
        url: 'https://linkedin.com/in/ann',
        note: ' I study UX ',
        name: ' Ann ',
      },
      headers: { 'x-correlation-id': 'corr-waitlist-1' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true });
    const rows = await rowsFor('ann.student@gmail.com');
    expect(rows).toEqual([
      {
        email: 'ann.student@gmail.com',
        role: 'Tester (student)',
        kind: 'signup',
        name: 'Ann',
        url: 'https://linkedin.com/in/ann',
        note: 'I study UX',
        approved: false,
        user_id: null,
      },
    ]);
    const event = await waitForEvent(
      h,
      (e) =>
        e.type === 'WaitlistJoined' &&
        (e.data as { email: string }).email === 'ann.student@gmail.com',
    );
    expect(event).toMatchObject({
      source: 'admin',
      correlationId: 'corr-waitlist-1',
      data: { role: 'Tester (student)', name: 'Ann' },
    });
  });

  it('accepts every tester signup role with empty optional fields', async () => {
    for (const [i, role] of TESTER_SIGNUP_ROLES.entries()) {
      const res = await call(h, 'POST', '/api/waitlist', {
        body: { email: `roles${i}@gmail.com`, role, url: '', note: '', name: '' },
      });
      expect(res.status).toBe(201);
      expect(await rowsFor(`roles${i}@gmail.com`)).toEqual([
        expect.objectContaining({ role, kind: 'signup', url: null, note: null, name: null }),
      ]);
    }
  });

  it('gives 409 with the documented sentence for the same e-mail and role again, in any letter case', async () => {
    const first = await call(h, 'POST', '/api/waitlist', {
      body: { email: 'twice@gmail.com', role: 'Tester (9-to-5)' },
    });
    expect(first.status).toBe(201);
    const again = await call(h, 'POST', '/api/waitlist', {
      body: { email: ' TWICE@gmail.com', role: 'Tester (9-to-5)' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      detail: WAITLIST_MESSAGES.alreadySignedUp,
      code: 'already_signed_up',
    });
    expect(again.body.detail).toBe("Already signed up! You'll hear from us soon.");
    // One tester signup per e-mail: another tester role is the same person signing up again.
    const otherRole = await call(h, 'POST', '/api/waitlist', {
      body: { email: 'twice@gmail.com', role: 'Tester (student)' },
    });
    expect(otherRole.status).toBe(409);
    expect(otherRole.body).toEqual({
      detail: WAITLIST_MESSAGES.alreadySignedUp,
      code: 'already_signed_up',
    });
    expect((await rowsFor('twice@gmail.com')).map((r) => r.role)).toEqual(['Tester (9-to-5)']);
  });

  it('keeps one tester signup per e-mail when two arrive at once with different roles', async () => {
    const [a, b] = await Promise.all([
      call(h, 'POST', '/api/waitlist', {
        body: { email: 'race@gmail.com', role: 'Tester (9-to-5)' },
      }),
      call(h, 'POST', '/api/waitlist', {
        body: { email: 'race@gmail.com', role: 'Tester (indie/agency)' },
      }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect(await rowsFor('race@gmail.com')).toHaveLength(1);
  });

  it('answers 400 with each field message and stores nothing for bad input', async () => {
    const before = await countAll();
    const cases: [unknown, Record<string, string[]>][] = [
      [{ role: 'Tester (student)' }, { email: ['Email is required'] }],
      [
        { email: 'nobody', role: 'Tester (student)' },
        { email: ['Please enter a valid email address'] },
      ],
      [{ email: 'a@gmail.com' }, { role: [WAITLIST_MESSAGES.roleRequired] }],
      [{ email: 'a@gmail.com', role: 'Astronaut' }, { role: ['Please choose a role'] }],
      [
        { email: 'a@gmail.com', role: 'Tester (student)', url: 'not a url' },
        { url: [WAITLIST_MESSAGES.urlInvalid] },
      ],
      [
        { email: 'a@gmail.com', role: 'Tester (student)', url: 'javascript:alert(1)' },
        { url: ['Please enter a valid URL (starting with http:// or https://)'] },
      ],
      [
        { email: 'a@gmail.com', role: 'tester', name: 'A' },
        { name: ['Name must be at least 2 characters'] },
      ],
      [
        { email: 'a@gmail.com', role: 'tester', note: 'x'.repeat(2001) },
        { note: [WAITLIST_MESSAGES.noteTooLong] },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await call(h, 'POST', '/api/waitlist', { body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_error' });
      expect(res.body.errors).toEqual(expect.objectContaining(errors));
    }
    expect(await countAll()).toBe(before);
  });

  it("stores the no-Gmail waitlist form (role 'tester') as kind waitlist", async () => {
    const res = await call(h, 'POST', '/api/waitlist', {
      body: { email: 'Pat@Outlook.com', role: 'tester', note: ' no gmail ', name: 'Pat' },
    });
    expect(res.status).toBe(201);
    expect(await rowsFor('pat@outlook.com')).toEqual([
      expect.objectContaining({ kind: 'waitlist', role: 'tester', note: 'no gmail', name: 'Pat' }),
    ]);
  });
});

describe('POST /api/waitlist: job request (Site owner)', () => {
  const jobRequest = {
    email: 'owner@gmail.com',
    role: 'Site owner',
    url: 'https://shop.example.com',
    note: 'Check the checkout on mobile',
  };

  it('answers 401 "Please sign in first" without a token and stores nothing', async () => {
    const before = await countAll();
    const res = await call(h, 'POST', '/api/waitlist', { body: jobRequest });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Please sign in first', code: 'sign_in_required' });
    // Sign-in comes first even when the form is incomplete.
    const incomplete = await call(h, 'POST', '/api/waitlist', {
      body: { email: 'owner@gmail.com', role: 'Site owner' },
    });
    expect(incomplete.status).toBe(401);
    expect(incomplete.body.detail).toBe(WAITLIST_MESSAGES.signInFirst);
    expect(await countAll()).toBe(before);
  });

  it('answers 401 for an expired token', async () => {
    const token = await h.issuer.mint({ type: 'poster', exp: Math.floor(Date.now() / 1000) - 60 });
    const res = await call(h, 'POST', '/api/waitlist', { body: jobRequest, token });
    expect(res.status).toBe(401);
  });

  it('requires the url and the testing needs from a signed-in caller', async () => {
    const token = await h.issuer.mint({ type: 'poster' });
    const res = await call(h, 'POST', '/api/waitlist', {
      body: { email: 'owner@gmail.com', role: 'Site owner', note: '   ' },
      token,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({
      url: [WAITLIST_MESSAGES.urlRequired],
      note: [WAITLIST_MESSAGES.needsRequired],
    });
    // The same website rule as Post New Job: a site a tester could open.
    for (const [url, message] of [
      ['shop.example.com', WAITLIST_MESSAGES.urlInvalid],
      ['http://localhost:3000', WAITLIST_MESSAGES.urlLocal],
      ['https://exa mple.com', WAITLIST_MESSAGES.urlInvalid],
      ['http://a', WAITLIST_MESSAGES.urlLocal],
      ['http://192.168.1.10', WAITLIST_MESSAGES.urlLocal],
    ]) {
      const badUrl = await call(h, 'POST', '/api/waitlist', {
        body: { ...jobRequest, url },
        token,
      });
      expect(badUrl.status).toBe(400);
      expect(badUrl.body.errors).toEqual({ url: [message] });
    }
    expect(await rowsFor('owner@gmail.com')).toEqual([]);
  });

  it('stores every signed-in job request as kind job_request with the caller: a repeat customer is not "already signed up"', async () => {
    const userId = '6f1c1f4e-2a57-4c53-9a43-7d5f7e0c2b11';
    const token = await h.issuer.mint({ type: 'poster', id: userId });
    const res = await call(h, 'POST', '/api/waitlist', { body: jobRequest, token });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true });
    expect(await rowsFor('owner@gmail.com')).toEqual([
      {
        email: 'owner@gmail.com',
        role: 'Site owner',
        kind: 'job_request',
        name: null,
        url: 'https://shop.example.com',
        note: 'Check the checkout on mobile',
        approved: false,
        user_id: userId,
      },
    ]);
    const again = await call(h, 'POST', '/api/waitlist', {
      body: { ...jobRequest, url: 'https://blog.example.com', note: 'Is the blog readable?' },
      token,
    });
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ success: true });
    expect(await rowsFor('owner@gmail.com')).toEqual([
      expect.objectContaining({ kind: 'job_request', url: 'https://shop.example.com' }),
      expect.objectContaining({
        kind: 'job_request',
        url: 'https://blog.example.com',
        note: 'Is the blog readable?',
      }),
    ]);
  });

  it('still gives 409 to a second tester signup with the same e-mail and role after job requests from that e-mail', async () => {
    const token = await h.issuer.mint({
      type: 'poster',
      id: '6f1c1f4e-2a57-4c53-9a43-7d5f7e0c2b12',
    });
    expect(
      (
        await call(h, 'POST', '/api/waitlist', {
          body: { ...jobRequest, email: 'both@gmail.com' },
          token,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call(h, 'POST', '/api/waitlist', {
          body: { email: 'both@gmail.com', role: 'Tester (student)' },
        })
      ).status,
    ).toBe(201);
    const again = await call(h, 'POST', '/api/waitlist', {
      body: { email: 'both@gmail.com', role: 'Tester (student)' },
    });
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe(WAITLIST_MESSAGES.alreadySignedUp);
  });
});
