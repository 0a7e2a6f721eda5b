import { randomUUID } from 'node:crypto';
import { createEvent, type EventBus } from '@htm/events';
import { waitFor } from '@htm/service-kit/testing';
import { q, type Harness } from './harness.js';

/**
 * `n` accepted jobs for the tester, as they arrive in production: each job's $1 is in the ledger
 * (earnings are booked only for paid jobs), then jobs' SubmissionAccepted is published on the bus
 * and the payments consumer books the $0.82 earning. Answers the job and earning ids.
 */
export async function earn(
  h: Harness,
  testerId: string,
  n: number,
): Promise<Array<{ jobId: string; earningId: string }>> {
  const jobIds = Array.from({ length: n }, () => randomUUID());
  const base = Date.now() - 3600_000;
  for (const jobId of jobIds) {
    await q(
      h,
      `INSERT INTO payments.ledger_entries (kind, job_id, amount_cents, poster_id, session_id) VALUES ('payment', $1, 100, 'p', $2)`,
      [jobId, `cs_${jobId}`],
    );
  }
  await (h.svc.ctx.bus as EventBus).publish(
    jobIds.map((jobId, i) =>
      createEvent('SubmissionAccepted', jobId, {
        jobId,
        testerId,
        posterId: randomUUID(),
        title: `Job ${i + 1}`,
        acceptedBy: 'poster',
        acceptedAt: new Date(base + i * 1000).toISOString(),
      }),
    ),
  );
  // 30 s: after a kill -9, the dead process's stream partitions move on when its lease (10 s) ends.
  const rows = await waitFor(
    async () => {
      const r = await q<{ id: string; job_id: string }>(
        h,
        `SELECT id, job_id FROM payments.ledger_entries WHERE kind = 'tester_earning' AND job_id = ANY($1)`,
        [jobIds],
      );
      return r.length === n ? r : undefined;
    },
    'the earnings to be booked',
    30_000,
  );
  return jobIds.map((jobId) => ({ jobId, earningId: rows.find((r) => r.job_id === jobId)!.id }));
}
