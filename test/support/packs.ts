/** Checkouts and packs in the cross-service tests: pay as a browser would, post a pack and pay it. */
import { expect } from '@jest/globals';
import type { JobView } from '@htm/contracts';
import { client, waitFor, type Actor, type Stack } from './stack.js';

/** Pays a checkout the way the browser does (its local page's Pay) and waits until jobs knows every job paid. */
export async function payCheckout(
  stack: Stack,
  poster: Actor,
  checkoutUrl: string,
  jobIds: string[],
): Promise<void> {
  const pay = await fetch(`${stack.url}${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
  expect(pay.status).toBe(303);
  await waitFor(
    async () => {
      const mine = (await client(stack, poster.token).get('/api/jobs')).body.jobs.filter((j) =>
        jobIds.includes(j.id),
      );
      return mine.length === jobIds.length && mine.every((j) => j.payment_status === 'paid');
    },
    `${jobIds.length === 1 ? 'the job' : 'every slot of the pack'} to be paid`,
  );
}

/** Posts a pack of `size` testers and pays its one checkout; waits until every slot is paid. */
export async function postPackAndPay(
  stack: Stack,
  poster: Actor,
  size: number,
  site: Record<string, unknown>,
): Promise<{ packId: string; jobs: JobView[]; sessionId: string }> {
  const posted = await client(stack, poster.token).post('/api/jobs', { ...site, testers: size });
  expect(posted.status).toBe(201);
  await payCheckout(
    stack,
    poster,
    posted.body.checkout_url!,
    posted.body.jobs.map((j) => j.id),
  );
  return {
    packId: posted.body.pack.id,
    jobs: posted.body.jobs,
    sessionId: posted.body.session_id!,
  };
}

/**
 * Ends a pack's fill window now for the slots `ids`: their fill deadline goes into the past and
 * each slot's timer (`pack-fill-<id>`, one id per slot) is removed so the worker's reconciler
 * adds it again, due at once. The relay schedules that timer after the commit, from JobPublished:
 * on a busy machine it may not be there yet, and one added after the removal would keep the old
 * deadline (the reconciler's add is then a no-op). So each timer is first waited for.
 */
export async function endFillWindow(
  stack: Pick<Stack, 'sql' | 'jobs'>,
  ids: string[],
): Promise<void> {
  const queue = stack.jobs.worker!.queue;
  await waitFor(
    async () =>
      (await Promise.all(ids.map((id) => queue.getJob(`pack-fill-${id}`)))).every(Boolean),
    "the relay to schedule every slot's fill timer",
    60_000,
  );
  await stack.sql(
    `UPDATE jobs.jobs SET fill_deadline_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  for (const id of ids) await queue.remove(`pack-fill-${id}`);
}
