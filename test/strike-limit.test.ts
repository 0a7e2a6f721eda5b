/**
 * #29: the strike limit is identity's setting (TESTER_STRIKE_LIMIT), announced in its tester
 * events; jobs acts on the announced value. With the limit at 5 a tester keeps claiming through
 * their fourth strike and is refused from the fifth, in jobs and identity alike.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  client,
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from './support/stack.js';

let stack: Stack;
let poster: Actor;
let tester: Actor;

beforeAll(async () => {
  stack = await startStack({
    label: 'strikes',
    env: { TESTER_STRIKE_LIMIT: '5', CLAIM_TIMEOUT_MS: '300', READ_CACHE_TTL_MS: '0' },
  });
  const admin = await signInAdmin(stack);
  poster = await signInPoster(stack, 'strikes.poster@gmail.com');
  tester = await signInTester(stack, 'strikes.tester@gmail.com', { admin });
});
afterAll(async () => {
  await stack?.stop();
});

const jobsUser = async (id: string) =>
  (
    await stack.sql<{ strikes: number; approved: boolean; strike_limit: number | null }>(
      'SELECT strikes, approved, strike_limit FROM jobs.users WHERE id = $1',
      [id],
    )
  )[0];
const jobStatus = async (id: string) =>
  (await stack.sql<{ status: string }>('SELECT status FROM jobs.jobs WHERE id = $1', [id]))[0]
    ?.status;

describe('TESTER_STRIKE_LIMIT=5', () => {
  it('lets a tester claim through four missed claims and makes them unclaimable in jobs exactly at the fifth', async () => {
    expect((await jobsUser(tester.id)).strike_limit).toBe(5);
    const { jobId } = await postAndPay(stack, poster);
    for (let strike = 1; strike <= 5; strike++) {
      const claim = await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`);
      expect({ strike, status: claim.status }).toEqual({ strike, status: 200 });
      // The claim timer takes the job back and gives the strike.
      await waitFor(
        async () =>
          (await jobStatus(jobId)) === 'open' && (await jobsUser(tester.id)).strikes === strike,
        `strike ${strike}`,
      );
      expect({ strike, approved: (await jobsUser(tester.id)).approved }).toEqual({
        strike,
        approved: strike < 5,
      });
    }
    // Refused: 403 from jobs' projection, or 401 once identity has also ended the tester's sign-ins.
    const refused = await client(stack, tester.token).post(`/api/jobs/${jobId}/claim`);
    expect([401, 403]).toContain(refused.status);
    expect(await jobStatus(jobId)).toBe('open');
    // Identity, owner of the setting, unapproved at the same strike.
    await waitFor(
      async () =>
        (
          await stack.sql<{ approved: boolean; strikes: number }>(
            'SELECT approved, strikes FROM identity.users WHERE id = $1',
            [tester.id],
          )
        )[0]?.approved === false,
      'identity to unapprove',
    );
    expect(
      (
        await stack.sql<{ strikes: number }>('SELECT strikes FROM identity.users WHERE id = $1', [
          tester.id,
        ])
      )[0].strikes,
    ).toBe(5);
  });
});
