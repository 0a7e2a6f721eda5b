/**
 * Forged events (issue #27, finding 1), every service real: events written straight onto the bus
 * by someone who is not their owner are dead-lettered, counted, and change nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { createEvent, partitionOf, type RedisStreamsBus } from '@htm/events';
import {
  client,
  JOB,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  type Stack,
} from './support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ label: 'forged' });
});
afterAll(async () => {
  await stack?.stop();
});

const bus = () => stack.jobs.ctx.bus as unknown as RedisStreamsBus;
const redis = (): Redis => bus().redis;

/** XADDs a hand-written envelope onto `stream`'s stream, as anyone with plain Redis access could. */
async function forge(
  stream: 'payments' | 'jobs' | 'admin',
  envelope: { subject: string; source: string },
) {
  await redis().xadd(
    bus().streamKey(stream, partitionOf(envelope.subject, bus().partitions)),
    '*',
    'e',
    JSON.stringify(envelope),
  );
}

async function deadLetters(group: string) {
  return bus().deadLetters(group);
}

async function rejectedCount(url: string, reason: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('events_rejected_total{') && l.includes(`reason="${reason}"`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('forged events', () => {
  it('a JobPaid written onto the payments stream under another name leaves the job unpaid and unclaimable', async () => {
    const poster = await signInPoster(stack, 'forged.poster@gmail.com');
    const tester = await signInTester(stack, 'forged.tester@gmail.com');
    const posted = await client(stack, poster.token).post('/api/jobs', JOB);
    expect(posted.status).toBe(201);
    const jobId = posted.body.job.id;

    const paid = createEvent('JobPaid', jobId, {
      jobId,
      sessionId: 'cs_forged',
      posterId: poster.id,
      amountCents: 100,
      paidAt: new Date().toISOString(),
    });
    await forge('payments', { ...paid, source: 'admin' });
    // The right name, the wrong stream: only payments may write its stream, and JobPaid is read there only.
    const misplaced = createEvent('JobPaid', jobId, {
      jobId,
      sessionId: 'cs_forged_2',
      posterId: poster.id,
      amountCents: 100,
      paidAt: new Date().toISOString(),
    });
    await forge('jobs', { ...misplaced });

    const letters = await waitFor(async () => {
      const l = (await deadLetters('jobs')).filter(
        (d) => (d.event as { subject?: string }).subject === jobId,
      );
      return l.length === 1 ? l : undefined;
    }, 'the forged JobPaid in jobs dead letter');
    expect(letters[0]).toMatchObject({
      reason: 'source_not_owner',
      error: 'rejected (source_not_owner): JobPaid is published by payments, not admin',
    });
    expect(await rejectedCount(stack.jobs.url, 'source_not_owner')).toBeGreaterThanOrEqual(1);

    // jobs does not read its own stream; anything reading it (the live channel) refuses the misplaced one.
    await waitFor(
      async () =>
        (await deadLetters('gateway-live')).some(
          (d) => (d.event as { id?: string }).id === misplaced.id,
        ),
      'the live feed to refuse the misplaced JobPaid',
    );
    expect(
      (await deadLetters('gateway-live')).find(
        (d) => (d.event as { id?: string }).id === misplaced.id,
      ),
    ).toMatchObject({ reason: 'wrong_stream' });

    const job = await stack.sql<{ payment_status: string; status: string }>(
      'SELECT payment_status, status FROM jobs.jobs WHERE id = $1',
      [jobId],
    );
    expect(job).toEqual([{ payment_status: 'unpaid', status: 'open' }]);
    const claim = await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`);
    expect(claim.status).not.toBe(200);
    expect(claim.body.code).toEqual(expect.any(String));
  });

  it('TesterStrikeRecorded events written under the admin name do not unapprove a tester', async () => {
    const admin = await signInAdmin(stack);
    const tester = await signInTester(stack, 'forged.struck@gmail.com', { admin });
    for (let strike = 1; strike <= 3; strike++) {
      const e = createEvent('TesterStrikeRecorded', tester.id, {
        testerId: tester.id,
        jobId: randomUUID(),
        strikes: strike,
        reason: 'claim_timeout',
      });
      await forge('jobs', { ...e, source: 'admin' });
    }
    await waitFor(
      async () =>
        (await deadLetters('identity')).filter(
          (d) => (d.event as { subject?: string }).subject === tester.id,
        ).length === 3,
      'three strikes in identity dead letter',
    );
    expect(
      (await deadLetters('identity'))
        .filter((d) => (d.event as { subject?: string }).subject === tester.id)
        .map((d) => d.reason),
    ).toEqual(['source_not_owner', 'source_not_owner', 'source_not_owner']);
    expect(
      await stack.sql('SELECT approved, strikes FROM identity.users WHERE id = $1', [tester.id]),
    ).toEqual([{ approved: true, strikes: 0 }]);
    const me = await client(stack, tester.token).get('/api/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ approved: true });
  });
});
