/**
 * GET /api/public/proof: the landing page's live proof (tests delivered, median hours to a first
 * result) from the projection, public, and null while fewer than PROOF_MIN_TESTS jobs back it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { handleOnce, type EventEnvelope } from '@htm/events';
import { PROOF_MIN_TESTS, type PublicProofResponse } from '@htm/contracts';
import type { Tx } from '@htm/service-kit/db';
import { analyticsEventHandlers } from '../src/events/handlers.js';
import { handledEvents } from '../src/db/schema.js';
import { ev, startHarness, type Harness } from './support.js';

const H = 3600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('the public live proof', () => {
  let h: Harness;
  const handlers = analyticsEventHandlers();
  const apply = (e: EventEnvelope) => {
    const fn = handlers[e.type] as (e: EventEnvelope, tx: Tx) => Promise<void>;
    return handleOnce(h.svc.ctx.db, handledEvents, e, (tx) => fn(e, tx));
  };
  /** One job paid at `paidAt`, its first result `hours` later, accepted by the poster a day after. */
  const deliver = async (paidAt: number, hours: number) => {
    const jobId = randomUUID();
    const testerId = randomUUID();
    const posterId = randomUUID();
    const submittedAt = paidAt + hours * H;
    for (const e of [
      ev(
        'JobPaid',
        jobId,
        { jobId, sessionId: `cs_${jobId}`, posterId, amountCents: 100, paidAt: iso(paidAt) },
        iso(paidAt),
      ),
      ev(
        'JobClaimed',
        jobId,
        {
          jobId,
          testerId,
          claimedAt: iso(paidAt + H / 2),
          deadlineAt: iso(paidAt + 50 * H),
          by: 'tester',
        },
        iso(paidAt + H / 2),
      ),
      ev(
        'WorkSubmitted',
        jobId,
        {
          jobId,
          testerId,
          submissionId: randomUUID(),
          revision: 0,
          submittedAt: iso(submittedAt),
          autoAcceptAt: iso(submittedAt + 96 * H),
        },
        iso(submittedAt),
      ),
      ev(
        'SubmissionAccepted',
        jobId,
        {
          jobId,
          testerId,
          posterId,
          title: 't',
          acceptedBy: 'poster',
          acceptedAt: iso(submittedAt + 24 * H),
        },
        iso(submittedAt + 24 * H),
      ),
    ])
      expect(await apply(e)).toBe(true);
  };
  const proof = async () => {
    const res = await fetch(`${h.svc.url}/api/public/proof`);
    return { status: res.status, body: (await res.json()) as PublicProofResponse };
  };

  beforeAll(async () => {
    h = await startHarness('analytics_proof');
  });
  afterAll(async () => h?.close());

  it('answers anyone, without a token, and stays hidden while too few tests were delivered', async () => {
    expect(await proof()).toEqual({ status: 200, body: { proof: null } });
    const start = Date.parse('2026-05-01T09:00:00Z');
    for (let i = 0; i < PROOF_MIN_TESTS - 1; i++) await deliver(start + i * H, 6);
    expect((await proof()).body).toEqual({ proof: null });
  });

  it('shows the tests delivered and the median hours to a first result once there are enough', async () => {
    await deliver(Date.parse('2026-05-03T09:00:00Z'), 30);
    await deliver(Date.parse('2026-05-03T10:00:00Z'), 30);
    const { status, body } = await proof();
    expect(status).toBe(200);
    // 11 delivered: nine first results after 6 h, two after 30 h: the median is 6 h (at most 5% high).
    expect(body.proof?.tests_delivered).toBe(PROOF_MIN_TESTS + 1);
    expect(body.proof!.median_hours_to_first_result).toBeGreaterThanOrEqual(6);
    expect(body.proof!.median_hours_to_first_result).toBeLessThanOrEqual(6.3);
  });
});
