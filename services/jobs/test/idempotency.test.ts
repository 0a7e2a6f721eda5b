/**
 * Idempotency-Key on the POSTs that create or pay (Stripe's convention, @htm/service-kit
 * idempotency.ts): a retried POST whose answer was lost answers the first answer and creates
 * nothing twice.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { jobBody, poster, startHarness, waitFor, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('idem');
});
afterAll(async () => {
  await h?.close();
});

async function post(token: string, key: string | undefined, body: unknown) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
  };
  if (key !== undefined) headers['idempotency-key'] = key;
  const res = await fetch(`${h.svc.url}/api/jobs`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    text: await res.text(),
    replayed: res.headers.get('idempotent-replayed'),
  };
}
const jobsOf = async (posterId: string) =>
  h.svc.ctx.dbHandle.query('SELECT id FROM jobs.jobs WHERE poster_id = $1', [posterId]);

describe('Idempotency-Key on POST /api/jobs', () => {
  it('answers a repeat with the same key with the first answer and creates one job', async () => {
    const p = await poster(h);
    const key = randomUUID();
    const first = await post(p.token, key, jobBody());
    const again = await post(p.token, key, jobBody());
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.replayed).toBe('true');
    expect(await jobsOf(p.id)).toHaveLength(1);
    // The same body without a key (or with another key) is a new job, as before.
    expect((await post(p.token, randomUUID(), jobBody())).status).toBe(201);
    expect(await jobsOf(p.id)).toHaveLength(2);
  });

  it('refuses the same key with a different body with 422 idempotency_key_reused', async () => {
    const p = await poster(h);
    const key = randomUUID();
    expect((await post(p.token, key, jobBody())).status).toBe(201);
    const other = await post(p.token, key, jobBody({ title: 'Another page entirely' }));
    expect(other.status).toBe(422);
    expect(JSON.parse(other.text)).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await jobsOf(p.id)).toHaveLength(1);
  });

  it('keeps keys per user: another poster with the same key gets their own job', async () => {
    const [a, b] = [await poster(h), await poster(h)];
    const key = randomUUID();
    const ra = await post(a.token, key, jobBody());
    const rb = await post(b.token, key, jobBody());
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(JSON.parse(rb.text).job.poster_id).toBe(b.id);
  });

  it('answers 409 idempotency_in_progress to a duplicate sent while the first is still running', async () => {
    const p = await poster(h);
    const key = randomUUID();
    let release!: () => void;
    h.payments.hold = new Promise<void>((r) => (release = r));
    const calls = h.payments.requests.length;
    const first = post(p.token, key, jobBody());
    try {
      await waitFor(
        () => h.payments.requests.length > calls,
        'the first request waiting on payments',
      );
      const dup = await post(p.token, key, jobBody());
      expect(dup.status).toBe(409);
      expect(JSON.parse(dup.text)).toMatchObject({ code: 'idempotency_in_progress' });
    } finally {
      h.payments.hold = undefined;
      release();
    }
    expect((await first).status).toBe(201);
    expect(await jobsOf(p.id)).toHaveLength(1);
  });

  it('keeps a validation answer and a job posted while payments was down (the poster pays it later, not a second job)', async () => {
    const p = await poster(h);
    const bad = randomUUID();
    const r1 = await post(p.token, bad, jobBody({ title: ' ' }));
    const r2 = await post(p.token, bad, jobBody({ title: ' ' }));
    expect([r1.status, r2.status]).toEqual([400, 400]);
    expect(r2.replayed).toBe('true');

    const key = randomUUID();
    h.payments.down = true;
    let down;
    try {
      down = await post(p.token, key, jobBody());
    } finally {
      h.payments.down = false;
    }
    expect(down.status).toBe(201);
    const retry = await post(p.token, key, jobBody());
    expect(retry.replayed).toBe('true');
    expect(retry.text).toBe(down.text);
    expect(await jobsOf(p.id)).toHaveLength(1);
  });

  it('refuses a malformed key with 400 and creates nothing', async () => {
    const p = await poster(h);
    const r = await post(p.token, 'x'.repeat(300), jobBody());
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toMatchObject({ code: 'invalid_idempotency_key' });
    expect(await jobsOf(p.id)).toHaveLength(0);
  });
});
