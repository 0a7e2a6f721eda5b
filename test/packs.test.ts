/**
 * "Five testers for $5" (issue 33) over HTTP through the gateway, every service real: one
 * checkout for a pack, a different tester per slot, what they agree on, unfilled slots refunded.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startJobs } from '@htm/jobs';
import {
  PACK_SIZE,
  TESTER_SHARE_CENTS,
  PLATFORM_FEE_CENTS,
  PRICE_PER_TEST_CENTS,
  type JobView,
} from '@htm/contracts';
import {
  client,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  JOB,
  type Actor,
  type Stack,
} from './support/stack.js';
import { endFillWindow, postPackAndPay } from './support/packs.js';

let stack: Stack;
let admin: Actor;
let poster: Actor;
let testers: Actor[];

beforeAll(async () => {
  stack = await startStack({ label: 'packs' });
  admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'packs.poster@gmail.com');
  testers = [];
  for (let i = 1; i <= 6; i++)
    testers.push(await signInTester(stack, `packs.tester${i}@gmail.com`, { admin }));
}, 240_000);
afterAll(async () => {
  await stack?.stop();
});

const SITE = { ...JOB, title: 'Five testers on my shop', url: 'https://shop.example' };
const postPack = (size: number, site: Record<string, unknown> = SITE) =>
  postPackAndPay(stack, poster, size, site);

async function submitFindings(tester: Actor, jobId: string, findings: string[]) {
  const form = new FormData();
  form.set('feedback_text', 'I went through the shop from the home page to the checkout.');
  findings.forEach((f, i) => form.set(`key_finding_${i + 1}`, f));
  const res = await fetch(`${stack.url}/api/jobs/${jobId}/submit-work`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tester.token}` },
    body: form,
  });
  expect(res.status).toBe(201);
}

const packListings = async (tester: Actor, packId: string) =>
  (await client(stack, tester.token).get('/api/tester/available-jobs')).body.jobs.filter(
    (j) => j.pack_id === packId,
  );

describe('ordering several testers in one checkout', () => {
  it('refuses a tester count outside 1-10 with a clear message', async () => {
    for (const testersCount of [0, PACK_SIZE.max + 1, 2.5, '5']) {
      const r = await client(stack, poster.token).post('/api/jobs', {
        ...SITE,
        testers: testersCount,
      });
      expect(r.status).toBe(400);
      expect(r.body.errors?.testers).toEqual([
        `Testers must be a whole number from ${PACK_SIZE.min} to ${PACK_SIZE.max}`,
      ]);
    }
  });

  it('answers one job and no pack without `testers`, as before', async () => {
    const r = await client(stack, poster.token).post('/api/jobs', SITE);
    expect(r.status).toBe(201);
    expect(r.body.pack).toBeNull();
    expect(r.body.jobs.map((j) => j.id)).toEqual([r.body.job.id]);
    expect(r.body.job.pack_id).toBeNull();
  });
  it('pays and deletes an unpaid pack as a whole: any slot opens the same checkout, deleting one deletes all', async () => {
    const posted = await client(stack, poster.token).post('/api/jobs', { ...SITE, testers: 3 });
    expect(posted.status).toBe(201);
    const again = await client(stack, poster.token).post(
      `/api/jobs/${posted.body.jobs[2].id}/checkout`,
    );
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      session_id: posted.body.session_id,
      checkout_url: posted.body.checkout_url,
      pack: posted.body.pack,
      job: { id: posted.body.jobs[0].id },
    });
    expect(again.body.jobs.map((j) => j.id)).toEqual(posted.body.jobs.map((j) => j.id));
    const del = await client(stack, poster.token).call(
      'DELETE',
      `/api/jobs/${posted.body.jobs[1].id}`,
    );
    expect(del.status).toBe(204);
    const left = (await client(stack, poster.token).get('/api/jobs')).body.jobs.filter(
      (j) => j.pack_id === posted.body.pack.id,
    );
    expect(left).toEqual([]);
  });
});

describe('a pack of five, from the one payment to what the testers agree on', () => {
  let packId: string;
  let jobs: JobView[];
  let sessionId: string;
  const taken = new Map<string, Actor>();

  it('posts five jobs with one checkout for 5 × $1, and the local checkout shows it', async () => {
    const posted = await client(stack, poster.token).post('/api/jobs', { ...SITE, testers: 5 });
    expect(posted.status).toBe(201);
    expect(posted.body.pack).toEqual({ id: expect.any(String), size: 5 });
    expect(posted.body.jobs).toHaveLength(5);
    expect(new Set(posted.body.jobs.map((j) => j.id)).size).toBe(5);
    expect(posted.body.job.id).toBe(posted.body.jobs[0].id);
    for (const j of posted.body.jobs)
      expect(j).toMatchObject({
        budget: 1,
        pack_id: posted.body.pack.id,
        title: SITE.title,
        url: SITE.url,
        payment_status: 'unpaid',
      });
    const [session] = await stack.sql<{ amount_cents: number; job_ids: string[] }>(
      'SELECT amount_cents, job_ids FROM payments.checkout_sessions WHERE id = $1',
      [posted.body.session_id],
    );
    expect(session).toEqual({
      amount_cents: 5 * PRICE_PER_TEST_CENTS,
      job_ids: posted.body.jobs.map((j) => j.id),
    });
    const page = await (await fetch(`${stack.url}${posted.body.checkout_url}`)).text();
    expect(page).toContain('5 × $1');
    expect(page).toContain('Pay $5.00');
  });

  it('publishes all five when the one checkout is paid, each booked $1', async () => {
    ({ packId, jobs, sessionId } = await postPack(5));
    const ids = jobs.map((j) => j.id);
    const payments = await stack.sql<{ job_id: string; amount_cents: number; session_id: string }>(
      "SELECT job_id, amount_cents, session_id FROM payments.ledger_entries WHERE kind = 'payment' AND job_id = ANY($1::text[]) ORDER BY job_id",
      [ids],
    );
    expect(payments).toEqual(
      [...ids]
        .sort()
        .map((id) => ({ job_id: id, amount_cents: PRICE_PER_TEST_CENTS, session_id: sessionId })),
    );
  });

  it('lists the pack once in Available Jobs', async () => {
    const listed = await waitFor(async () => {
      const l = await packListings(testers[0], packId);
      return l.length ? l : undefined;
    }, 'the pack in available jobs');
    expect(listed).toHaveLength(1);
  });

  it('gives each of five testers their own slot, refuses a second slot to one of them and a sixth tester', async () => {
    for (const tester of testers.slice(0, 5)) {
      // Everyone claims what the list shows (the same slot until taken): the claim moves on to a free slot.
      const [listed] = await packListings(tester, packId);
      expect(listed).toBeDefined();
      const r = await client(stack, tester.token).post(`/api/jobs/${listed.id}/claim`);
      expect(r.status).toBe(200);
      expect(r.body.job.pack_id).toBe(packId);
      expect(taken.has(r.body.job.id)).toBe(false);
      taken.set(r.body.job.id, tester);
      // Once in, the pack is gone from this tester's list.
      expect(await packListings(tester, packId)).toEqual([]);
    }
    expect(taken.size).toBe(5);

    const again = await client(stack, testers[0].token).post(`/api/jobs/${jobs[4].id}/claim`);
    expect(again.status).toBe(409);
    expect(['already_in_pack', 'job_taken']).toContain(again.body.code);
    const sixth = await client(stack, testers[5].token).post(`/api/jobs/${jobs[0].id}/claim`);
    expect(sixth.status).toBe(409);
    expect(sixth.body.code).toBe('job_taken');
    expect(await packListings(testers[5], packId)).toEqual([]);

    const members = await stack.sql<{ n: number }>(
      'SELECT count(DISTINCT tester_id)::int AS n FROM jobs.pack_members WHERE pack_id = $1',
      [packId],
    );
    expect(members[0].n).toBe(5);
  });

  it('refuses a slot of the pack to a tester who held one, even after it went back to open', async () => {
    // Tester 1's slot is released (as the claim timer would); the slot opens for someone else, not for them.
    const [first] = [...taken.entries()].filter(([, t]) => t === testers[0]);
    await stack.sql(
      "UPDATE jobs.jobs SET status = 'open', tester_id = NULL, claimed_at = NULL, claim_deadline_at = NULL WHERE id = $1",
      [first[0]],
    );
    const r = await client(stack, testers[0].token).post(`/api/jobs/${first[0]}/claim`);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      code: 'already_in_pack',
      detail: expect.stringMatching(/different tester/),
    });
    // Nor can the admin hand it back to them.
    const assign = await client(stack, admin.token).post(
      `/api/admin/assign/${first[0]}/${testers[0].id}`,
    );
    expect(assign.status).toBe(409);
    expect(assign.body.code).toBe('already_in_pack');
    const back = await client(stack, testers[5].token).post(`/api/jobs/${first[0]}/claim`);
    expect(back.status).toBe(200);
    taken.set(first[0], testers[5]);
  });

  it('groups the same problem written three ways into one cluster of 3, unrelated findings apart', async () => {
    const byTester = new Map([...taken.entries()].map(([jobId, t]) => [t.email, jobId]));
    const order = [testers[5], testers[1], testers[2], testers[3], testers[4]];
    const findings = [
      ['The cart button is hidden on mobile', 'Checkout page takes ages to load'],
      ['On my phone the cart button was hidden under the cookie banner'],
      [
        'Add to cart button hides behind the menu on mobile screens',
        'Search finds nothing for shoes',
      ],
      ['Footer links to the privacy policy are broken'],
      ['The newsletter form accepts an empty email'],
    ];
    for (let i = 0; i < order.length; i++)
      await submitFindings(order[i], byTester.get(order[i].email)!, findings[i]);

    const view = await client(stack, poster.token).get(`/api/packs/${packId}`);
    expect(view.status).toBe(200);
    expect(view.body.pack).toEqual({
      id: packId,
      size: 5,
      claimed: 5,
      submitted: 5,
      completed: 0,
      closed: 0,
    });
    expect(view.body.jobs.map((j) => j.id).sort()).toEqual(jobs.map((j) => j.id).sort());
    const [top, ...rest] = view.body.clusters;
    expect(top.count).toBe(3);
    expect([...top.job_ids].sort()).toEqual(
      [
        byTester.get(testers[5].email),
        byTester.get(testers[1].email),
        byTester.get(testers[2].email),
      ].sort(),
    );
    expect(top.summary).toMatch(/cart button/i);
    expect(top.findings.map((f) => f.text).sort()).toEqual(
      [findings[0][0], findings[1][0], findings[2][0]].sort(),
    );
    expect(rest.map((c) => c.findings.map((f) => f.text))).toEqual(
      expect.arrayContaining([
        [findings[0][1]],
        [findings[2][1]],
        [findings[3][0]],
        [findings[4][0]],
      ]),
    );
    expect(rest.map((c) => c.count)).toEqual([1, 1, 1, 1]);
  });

  it('shows the pack to its poster and the admin only', async () => {
    expect((await client(stack, admin.token).get(`/api/packs/${packId}`)).status).toBe(200);
    const other = await signInPoster(stack, 'packs.other.poster@gmail.com');
    expect((await client(stack, other.token).get(`/api/packs/${packId}`)).body.code).toBe(
      'not_pack_poster',
    );
    expect((await client(stack, testers[1].token).get(`/api/packs/${packId}`)).status).toBe(403);
    expect(
      (await client(stack, poster.token).get('/api/packs/00000000-0000-4000-8000-000000000000'))
        .status,
    ).toBe(404);
    expect((await client(stack, poster.token).get('/api/packs/not-a-pack')).status).toBe(404);
  });

  it('pays each tester 0.82 when the poster accepts, with exact ledger sums for the pack', async () => {
    for (const j of jobs)
      expect(
        (await client(stack, poster.token).post(`/api/jobs/${j.id}/review`, { decision: 'accept' }))
          .status,
      ).toBe(200);
    const ids = jobs.map((j) => j.id);
    const sums = await waitFor(async () => {
      const [row] = await stack.sql<Record<string, number>>(
        `SELECT COALESCE(SUM(amount_cents) FILTER (WHERE kind = 'payment'), 0)::int AS payments,
                COALESCE(SUM(amount_cents) FILTER (WHERE kind = 'tester_earning'), 0)::int AS earnings,
                COALESCE(SUM(amount_cents) FILTER (WHERE kind = 'platform_fee'), 0)::int AS fees,
                COUNT(DISTINCT tester_id) FILTER (WHERE kind = 'tester_earning')::int AS testers
           FROM payments.ledger_entries WHERE job_id = ANY($1::text[])`,
        [ids],
      );
      return row.earnings === 5 * TESTER_SHARE_CENTS ? row : undefined;
    }, 'five earnings');
    expect(sums).toEqual({
      payments: 5 * PRICE_PER_TEST_CENTS,
      earnings: 5 * TESTER_SHARE_CENTS,
      fees: 5 * PLATFORM_FEE_CENTS,
      testers: 5,
    });
    const view = await client(stack, poster.token).get(`/api/packs/${packId}`);
    expect(view.body.pack).toMatchObject({ completed: 5 });
  });
});

describe('testers racing for one pack', () => {
  it('gives four testers who claim the listed slot at the same moment four different slots', async () => {
    const { packId, jobs } = await postPack(4);
    const [listed] = await waitFor(async () => {
      const l = await packListings(testers[1], packId);
      return l.length ? l : undefined;
    }, 'the pack listed');
    const answers = await Promise.all(
      testers.slice(1, 5).map((t) => client(stack, t.token).post(`/api/jobs/${listed.id}/claim`)),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((a) => a.body.job.id).sort()).toEqual(jobs.map((j) => j.id).sort());
    const fifth = await client(stack, testers[5].token).post(`/api/jobs/${listed.id}/claim`);
    expect(fifth.status).toBe(409);
  });
});

describe('a second slot of a fresh-eyes pack', () => {
  it("is refused as already in the pack (409 already_in_pack, with the pack's own words), not as a site tested before", async () => {
    const site = { ...SITE, url: 'https://fresh-pack.example', fresh_eyes: true };
    const { packId, jobs } = await postPack(2, site);
    const [listed] = await waitFor(async () => {
      const l = await packListings(testers[0], packId);
      return l.length ? l : undefined;
    }, 'the fresh-eyes pack listed');
    const first = await client(stack, testers[0].token).post(`/api/jobs/${listed.id}/claim`);
    expect(first.status).toBe(200);
    // Submitted: the site now counts as one this tester has tested.
    await submitFindings(testers[0], first.body.job.id, ['The cart button is hidden on mobile']);
    const other = jobs.find((j) => j.id !== first.body.job.id)!;
    const second = await client(stack, testers[0].token).post(`/api/jobs/${other.id}/claim`);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({
      code: 'already_in_pack',
      detail:
        'You already took a test of this site in this pack: each test of a pack goes to a different tester.',
    });
  });
});

describe('unfilled slots', () => {
  it('are closed at the end of the fill window and refunded exactly once, also across a restart', async () => {
    const { packId, jobs, sessionId } = await postPack(3);
    await waitFor(
      async () => (await packListings(testers[0], packId)).length === 1,
      'the pack listed',
    );
    const claim = await client(stack, testers[0].token).post(`/api/jobs/${jobs[0].id}/claim`);
    expect(claim.status).toBe(200);
    const ids = jobs.map((j) => j.id);
    const refundsBefore = (await client(stack, admin.token).get('/api/admin/financial-overview'))
      .body as unknown as { total_refunds: number };

    // The fill window (PACK_FILL_WINDOW_MS, 7 days) ends while the jobs service is down and Redis
    // has lost its timers: the service starting again rebuilds them from the database, and they fire.
    await endFillWindow(stack, ids);
    const port = Number(new URL(stack.env.JOBS_URL).port);
    await stack.jobs.stop();
    let jobsAgain = await startJobs({ ...stack.env }, { port, withWorker: true });
    try {
      let sql: Stack['sql'] = (text, params) => jobsAgain.ctx.dbHandle.query(text, params);
      const closed = await waitFor(async () => {
        const rows = await sql<{ id: string; status: string }>(
          'SELECT id, status FROM jobs.jobs WHERE pack_id = $1 ORDER BY id',
          [packId],
        );
        return rows.filter((r) => r.status === 'closed').length === 2 ? rows : undefined;
      }, 'two slots closed');
      expect(closed.find((r) => r.id === claim.body.job.id)?.status).toBe('claimed');
      const refunds = async () =>
        sql<{ job_id: string; amount_cents: number }>(
          "SELECT job_id, amount_cents FROM payments.ledger_entries WHERE kind = 'refund' AND job_id = ANY($1::text[]) ORDER BY job_id",
          [ids],
        );
      const open = ids.filter((id) => id !== claim.body.job.id).sort();
      expect(
        await waitFor(
          async () => ((await refunds()).length === 2 ? refunds() : undefined),
          'two refunds',
        ),
      ).toEqual(open.map((id) => ({ job_id: id, amount_cents: -PRICE_PER_TEST_CENTS })));

      // Another restart, and the timers rebuilt twice more: nothing is closed or refunded again.
      await jobsAgain.stop();
      jobsAgain = await startJobs({ ...stack.env }, { port, withWorker: true });
      sql = (text, params) => jobsAgain.ctx.dbHandle.query(text, params);
      await jobsAgain.worker!.reconcile();
      await jobsAgain.worker!.reconcile();
      // The poster was told by e-mail, once per refunded slot.
      const mail = await waitFor(async () => {
        const r = await fetch(`${stack.url}/api/dev/mail?to=${encodeURIComponent(poster.email)}`);
        const m = ((await r.json()) as { messages: Array<{ subject: string }> }).messages.filter(
          (x) => /unfilled tester slot/.test(x.subject),
        );
        return m.length >= 2 ? m : undefined;
      }, 'the refund e-mails');
      expect(mail).toHaveLength(2);
      expect(await refunds()).toHaveLength(2);
      const provider = await sql<{ n: number; cents: number }>(
        'SELECT count(*)::int AS n, SUM(amount_cents)::int AS cents FROM payments.local_provider_refunds WHERE session_id = $1',
        [sessionId],
      );
      expect(provider[0]).toEqual({ n: 2, cents: 2 * PRICE_PER_TEST_CENTS });
      const overview = (await client(stack, admin.token).get('/api/admin/financial-overview'))
        .body as unknown as { total_refunds: number };
      expect(Math.round((overview.total_refunds - refundsBefore.total_refunds) * 100)).toBe(
        2 * PRICE_PER_TEST_CENTS,
      );
      const view = await client(stack, poster.token).get(`/api/packs/${packId}`);
      expect(view.body.pack).toEqual({
        id: packId,
        size: 3,
        claimed: 1,
        submitted: 0,
        completed: 0,
        closed: 2,
      });
      expect(view.body.jobs.filter((j) => j.status === 'closed')).toHaveLength(2);
    } finally {
      // The stack stops what it started; this one is ours.
      await jobsAgain.stop();
    }
  });
});
