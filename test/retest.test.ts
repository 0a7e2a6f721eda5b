/** Re-test by the same tester ("Beyond the peers, part 2", item 1), through the gateway. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import type { RetestComparisonView } from '@htm/contracts';
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
import { payCheckout } from './support/packs.js';

/** Short, so the release is seen within the test; long enough for the reserved checks right after payment. */
const RESERVE_MS = 4000;

let stack: Stack;
let admin: Actor;
let poster: Actor;
let otherPoster: Actor;
let original: Actor;
let other: Actor;

beforeAll(async () => {
  stack = await startStack({
    label: 'retest',
    env: { RETEST_RESERVE_MS: String(RESERVE_MS), READ_CACHE_TTL_MS: '0' },
  });
  admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'retest.poster@gmail.com');
  otherPoster = await signInPoster(stack, 'retest.other.poster@gmail.com');
  original = await signInTester(stack, 'retest.original@gmail.com', { admin });
  other = await signInTester(stack, 'retest.other@gmail.com', { admin });
});
afterAll(async () => {
  await stack?.stop();
});

function findings(responses: [string, string], bullets: string[]) {
  const f = new FormData();
  f.set(
    'requirement_responses',
    JSON.stringify(
      responses.map((response_text, requirement_index) => ({ requirement_index, response_text })),
    ),
  );
  f.set('general_feedback', 'Checked on a phone.');
  f.set('device_used', 'Pixel 8');
  f.set('browser_used', 'Chrome 130');
  bullets.forEach((b, i) => f.set(`key_findings_bullet_${i + 1}`, b));
  return f;
}

async function submit(token: string, jobId: string, form: FormData) {
  const res = await fetch(`${stack.url}/api/jobs/${jobId}/submissions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  expect([res.status, res.status === 201 ? '' : await res.text()]).toEqual([201, '']);
}

const ids = (r: { body: { jobs: Array<{ id: string }> } }) => r.body.jobs.map((j) => j.id);

describe('re-test after fixes', () => {
  let firstId: string;
  let retestId: string;

  beforeAll(async () => {
    ({ jobId: firstId } = await postAndPay(stack, poster, JOB));
    expect((await client(stack, original.token).post(`/api/jobs/${firstId}/claim`)).status).toBe(
      200,
    );
    await submit(
      original.token,
      firstId,
      findings(
        ['The order button is hidden in the footer.', 'Prices leave out the delivery fee.'],
        ['Order button hidden', 'Delivery fee missing', 'Footer links broken'],
      ),
    );
  });

  it('refuses a re-test of a job that is not completed (409 not_completed) and one by another poster (403)', async () => {
    const early = await client(stack, poster.token).post(`/api/jobs/${firstId}/retest`);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({
      code: 'not_completed',
      detail: 'Only a completed job can be re-tested.',
    });
    expect(
      (
        await client(stack, poster.token).post(`/api/jobs/${firstId}/review`, {
          decision: 'accept',
        })
      ).status,
    ).toBe(200);

    const stranger = await client(stack, otherPoster.token).post(`/api/jobs/${firstId}/retest`);
    expect(stranger.status).toBe(403);
    expect(stranger.body.code).toBe('not_job_poster');
    expect((await client(stack, original.token).post(`/api/jobs/${firstId}/retest`)).status).toBe(
      403,
    );
    const count = await stack.sql<{ n: number }>('SELECT count(*)::int AS n FROM jobs.jobs');
    expect(count[0].n).toBe(1);
  });

  it('answers 201 like POST /api/jobs with a copy titled "Re-test: ..." that carries retest_of', async () => {
    const r = await client(stack, poster.token).post(`/api/jobs/${firstId}/retest`);
    expect(r.status).toBe(201);
    expect(r.body.checkout_url).toBe(`/api/payments/local/checkout/${r.body.session_id}`);
    expect(r.body.job).toMatchObject({
      title: `Re-test: ${JOB.title}`,
      url: JOB.url,
      what_to_test: JOB.what_to_test,
      requirements: JOB.requirements,
      geo_rule: JOB.geo_rule,
      retest_of: firstId,
      status: 'open',
      payment_status: 'unpaid',
      reserved_until: null,
    });
    retestId = r.body.job.id;
    expect(
      ids(await client(stack, original.token).get('/api/tester/available-jobs')),
    ).not.toContain(retestId);
    await payCheckout(stack, poster, r.body.checkout_url!, [retestId]);
  });

  it('holds the paid re-test for the original tester: others neither see nor claim it', async () => {
    const [row] = await stack.sql<{ held_ms: number }>(
      'SELECT (extract(epoch FROM reserved_until - paid_at) * 1000)::int AS held_ms FROM jobs.jobs WHERE id = $1',
      [retestId],
    );
    expect(row.held_ms).toBe(RESERVE_MS);
    expect(ids(await client(stack, other.token).get('/api/tester/available-jobs'))).not.toContain(
      retestId,
    );
    const refused = await client(stack, other.token).post(`/api/jobs/${retestId}/claim`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('reserved_for_original_tester');
    expect(
      (
        await stack.sql<{ status: string }>('SELECT status FROM jobs.jobs WHERE id = $1', [
          retestId,
        ])
      )[0].status,
    ).toBe('open');
    const mine = await client(stack, original.token).get('/api/tester/available-jobs');
    expect(mine.body.jobs[0]).toMatchObject({ id: retestId, retest_of: firstId });
  });

  it('opens it to every eligible tester once the window has passed', async () => {
    await waitFor(
      async () =>
        ids(await client(stack, other.token).get('/api/tester/available-jobs')).includes(retestId),
      'the reservation to end',
      RESERVE_MS + 10_000,
    );
    expect(
      ids(await client(stack, original.token).get('/api/tester/available-jobs')).filter(
        (id) => id === retestId,
      ),
    ).toHaveLength(1);
  });

  it('lets the original tester see the earlier findings, and the poster before and after side by side', async () => {
    expect((await client(stack, original.token).post(`/api/jobs/${retestId}/claim`)).status).toBe(
      200,
    );
    const whileTesting = await client(stack, original.token).get(
      `/api/jobs/${retestId}/before-after`,
    );
    expect(whileTesting.status).toBe(200);
    const seen = whileTesting.body as unknown as RetestComparisonView;
    expect(seen.requirements).toEqual([
      {
        requirement_index: 0,
        requirement: JOB.requirements[0],
        before: 'The order button is hidden in the footer.',
        after: null,
      },
      {
        requirement_index: 1,
        requirement: JOB.requirements[1],
        before: 'Prices leave out the delivery fee.',
        after: null,
      },
    ]);
    expect(
      (await client(stack, other.token).get(`/api/jobs/${retestId}/before-after`)).status,
    ).toBe(403);
    expect(
      (await client(stack, otherPoster.token).get(`/api/jobs/${retestId}/before-after`)).status,
    ).toBe(403);

    await submit(
      original.token,
      retestId,
      findings(
        ['The order button is now at the top.', 'Delivery fee is shown up front now.'],
        ['Order button fixed', 'Delivery fee shown', 'Footer links work'],
      ),
    );
    expect(
      (
        await client(stack, poster.token).post(`/api/jobs/${retestId}/review`, {
          decision: 'accept',
        })
      ).status,
    ).toBe(200);
    const result = (await client(stack, poster.token).get(`/api/jobs/${retestId}/before-after`))
      .body as unknown as RetestComparisonView;
    expect(result.retest_of).toBe(firstId);
    expect(result.requirements.map((r) => [r.before, r.after])).toEqual([
      ['The order button is hidden in the footer.', 'The order button is now at the top.'],
      ['Prices leave out the delivery fee.', 'Delivery fee is shown up front now.'],
    ]);
    expect(result.key_findings).toEqual([
      { index: 0, before: 'Order button hidden', after: 'Order button fixed' },
      { index: 1, before: 'Delivery fee missing', after: 'Delivery fee shown' },
      { index: 2, before: 'Footer links broken', after: 'Footer links work' },
    ]);
    const plain = await client(stack, poster.token).get(`/api/jobs/${firstId}/before-after`);
    expect(plain.status).toBe(404);
    expect(plain.body.code).toBe('not_a_retest');
  });
});

describe('a re-test that went to another tester', () => {
  it("shows them the earlier findings per item, not the first tester's report, name or files", async () => {
    const { jobId: firstId } = await postAndPay(stack, otherPoster, JOB);
    expect((await client(stack, original.token).post(`/api/jobs/${firstId}/claim`)).status).toBe(
      200,
    );
    const form = findings(
      ['Checkout button hidden.', 'Prices unclear.'],
      ['Checkout hidden', 'Prices unclear', 'Footer fine'],
    );
    const png = await sharp({
      create: { width: 24, height: 16, channels: 3, background: '#225588' },
    })
      .png()
      .toBuffer();
    form.set('files', new Blob([png], { type: 'image/png' }), 'shot.png');
    await submit(original.token, firstId, form);
    expect(
      (
        await client(stack, otherPoster.token).post(`/api/jobs/${firstId}/review`, {
          decision: 'accept',
        })
      ).status,
    ).toBe(200);
    const retest = await client(stack, otherPoster.token).post(`/api/jobs/${firstId}/retest`);
    expect(retest.status).toBe(201);
    const retestId = retest.body.job.id;
    const paid = await fetch(`${stack.url}${retest.body.checkout_url}/pay`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);
    // The original tester's reservation runs out; another tester takes the re-test.
    await waitFor(
      async () =>
        (await client(stack, other.token).post(`/api/jobs/${retestId}/claim`)).status === 200,
      'the re-test to open to others and be claimed',
      RESERVE_MS + 10_000,
    );

    const full = (await client(stack, admin.token).get(`/api/jobs/${retestId}/before-after`))
      .body as unknown as RetestComparisonView;
    expect(full.before?.submitted_by_snapshot.name).toBe('retest.original');
    expect(full.before?.file_urls).toHaveLength(1);

    const seen = await client(stack, other.token).get(`/api/jobs/${retestId}/before-after`);
    expect(seen.status).toBe(200);
    const view = seen.body as unknown as RetestComparisonView;
    expect(view.before).toBeNull();
    expect(view.requirements.map((r) => r.before)).toEqual([
      'Checkout button hidden.',
      'Prices unclear.',
    ]);
    expect(view.key_findings.map((k) => k.before)).toEqual([
      'Checkout hidden',
      'Prices unclear',
      'Footer fine',
    ]);
    const raw = JSON.stringify(view);
    expect(raw).not.toContain('retest.original');
    expect(raw).not.toContain('/api/files/');
    expect(raw).not.toContain('Checked on a phone.');
    // Nor can they fetch the first tester's file with their own token.
    const fileId = new URL(full.before!.file_urls![0], stack.url).pathname.split('/').pop();
    const file = await fetch(`${stack.url}/api/files/${fileId}`, {
      headers: { authorization: `Bearer ${other.token}` },
    });
    expect(file.status).toBe(403);

    // The first tester still sees their own report when a re-test is theirs (covered above);
    // the poster sees it whole.
    const posterView = (
      await client(stack, otherPoster.token).get(`/api/jobs/${retestId}/before-after`)
    ).body as unknown as RetestComparisonView;
    expect(posterView.before?.general_feedback).toBe('Checked on a phone.');
  });
});
