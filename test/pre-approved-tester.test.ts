/**
 * A tester who joined the normal way: "Sign Up to Test" on the landing page, the admin approves
 * that signup, she signs in at the tester login (no role screen) and sets her country in her
 * profile. The admin must be able to assign her a job, like any tester approved on the role path.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signIn as devSignIn } from '@htm/identity/testing';
import {
  client,
  postAndPay,
  signInAdmin,
  signInPoster,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from './support/stack.js';

let stack: Stack;
let admin: Actor;
let poster: Actor;

beforeAll(async () => {
  stack = await startStack({ label: 'preapproved' });
  admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'preapproved.poster@gmail.com');
});
afterAll(async () => {
  await stack?.stop();
});

describe('a tester approved through her landing-page signup', () => {
  it('can be assigned a paid job by the admin', async () => {
    const email = 'tina.tester@gmail.com';
    const name = 'Tina Tëster';

    // Landing page "Sign Up to Test", then Admin → Manage ticks "Approved" on her signup.
    const signup = await client(stack).post('/api/waitlist', {
      email,
      role: 'Tester (9-to-5)',
      name,
    });
    expect(signup.status).toBe(201);
    const list = await client(stack, admin.token).get('/api/admin/waitlist?kind=signup');
    const entry = (
      list.body as unknown as { entries: Array<{ id: string; email: string }> }
    ).entries.find((e) => e.email === email);
    expect(entry).toBeDefined();
    const approve = await client(stack, admin.token).patch(`/api/admin/waitlist/${entry!.id}`, {
      approved: true,
    });
    expect(approve.status).toBe(200);

    // The tester login succeeds once identity has taken in the approved signup.
    const session = await waitFor(
      () => devSignIn(stack.url, email, { name, intent: 'tester' }).catch(() => undefined),
      'the tester sign-in to be allowed',
    );
    const tina = client(stack, session.token);
    const me = (await tina.get('/api/me')).body as unknown as {
      id: string;
      type: string;
      approved: boolean;
    };
    expect(me).toMatchObject({ type: 'tester', approved: true });
    const profile = await tina.patch('/api/users/profile', { country: 'US' });
    expect(profile.status).toBe(200);
    // Her country is in the access token: the answer's token carries it (the older one is stale).
    const tinaNow = client(stack, profile.body.access_token as string);

    const available = await client(stack, admin.token).get('/api/admin/available-testers');
    expect(
      (
        available.body as unknown as {
          testers: Array<{ id: string; name: string; country: string | null }>;
        }
      ).testers,
    ).toContainEqual(expect.objectContaining({ id: me.id, name, country: 'US' }));
    // Wait until jobs has handled every identity event about her (the country comes last).
    await waitFor(
      async () =>
        (
          await stack.sql<{ country: string | null }>(
            'SELECT country FROM jobs.users WHERE id = $1',
            [me.id],
          )
        )[0]?.country === 'US',
      'jobs to learn her country',
    );

    const { jobId } = await postAndPay(stack, poster, {
      title: 'Check my shop',
      url: 'https://shop.example',
      what_to_test: 'Buy a mug',
      requirements: ['Checkout works'],
      geo_rule: 'us_pr',
    });
    const assign = await client(stack, admin.token).post(`/api/admin/assign/${jobId}/${me.id}`);
    expect(assign.status).toBe(200);
    expect(assign.body.job).toMatchObject({ id: jobId, status: 'claimed', tester_id: me.id });

    const all = await client(stack, admin.token).get('/api/jobs');
    expect(all.body.jobs.find((j) => j.id === jobId)).toMatchObject({
      status: 'claimed',
      tester_id: me.id,
    });
    const mine = await tinaNow.get('/api/tester/my-jobs');
    expect(mine.body.jobs.map((j) => j.id)).toContain(jobId);
  });

  it('shows one approval state: un-approving her in the Testers list un-ticks her signup, approving ticks it again', async () => {
    const email = 'una.tester@gmail.com';
    await client(stack).post('/api/waitlist', { email, role: 'Tester (student)', name: 'Una' });
    const signupOf = async () =>
      (
        (await client(stack, admin.token).get('/api/admin/waitlist?kind=signup'))
          .body as unknown as { entries: Array<{ id: string; email: string; approved: boolean }> }
      ).entries.find((e) => e.email === email)!;
    expect(
      (
        await client(stack, admin.token).patch(`/api/admin/waitlist/${(await signupOf()).id}`, {
          approved: true,
        })
      ).status,
    ).toBe(200);
    const session = await waitFor(
      () => devSignIn(stack.url, email, { name: 'Una', intent: 'tester' }).catch(() => undefined),
      'the tester sign-in to be allowed',
    );
    const me = (await client(stack, session.token).get('/api/me')).body as unknown as {
      id: string;
    };

    // Testers list: un-approve. The signup follows; nothing loops back (she stays un-approved).
    expect(
      (
        await client(stack, admin.token).patch(`/api/admin/approve-tester/${me.id}`, {
          approved: false,
        })
      ).status,
    ).toBe(200);
    await waitFor(
      async () => (await signupOf()).approved === false,
      'the signup to show not approved',
    );
    const testers = (await client(stack, admin.token).get('/api/admin/testers'))
      .body as unknown as { testers: Array<{ id: string; approved: boolean }> };
    expect(testers.testers.find((t) => t.id === me.id)?.approved).toBe(false);

    // And back: approving in the Testers list ticks the signup again.
    expect(
      (
        await client(stack, admin.token).patch(`/api/admin/approve-tester/${me.id}`, {
          approved: true,
        })
      ).status,
    ).toBe(200);
    await waitFor(async () => (await signupOf()).approved === true, 'the signup to show approved');
  });
});
