import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { JobView } from '@htm/contracts/jobs';
import { cacheStore } from '../../../test/cache-store';
import { applyLiveEffect, liveEffect } from '../../../lib/live';
import { setToken } from '../../../lib/tokens';
import { jobView } from '../../../test/job-view';
import { mockFetch, resetStorage, type Call, type FakeResponseInit } from '../../../test/setup';
import { claimApi } from './claim-job';
import { availableApi } from './list-available-jobs';
import { myJobsApi } from './list-my-jobs';
import { afterSubmit } from './submit-work';

const open = (id: string, over: Partial<JobView> = {}) =>
  jobView({ id, status: 'open', tester_id: null, ...over });
const tester = { type: 'tester' as const };

/** A tester's tab: Available Jobs (two jobs, one a pack's slot beside another) and My Jobs (one). */
async function testerTab(claim: (c: Call) => FakeResponseInit) {
  const backend = mockFetch((c) => {
    if (c.url.includes('/tester/available-jobs'))
      return {
        body: {
          jobs: [open('a'), open('b', { pack_id: 'p1' }), open('c', { pack_id: 'p1' })],
          next_cursor: null,
          usual_minutes: null,
          max_active_claims: 1,
        },
      };
    if (c.url.includes('/tester/my-jobs'))
      return {
        body: {
          jobs: [jobView({ id: 'old', status: 'completed', created_at: '2029-01-01T00:00:00Z' })],
        },
      };
    if (c.url.endsWith('/claim')) return claim(c);
    return { status: 404, body: { detail: 'no', code: 'not_found' } };
  });
  const store = cacheStore();
  await store.dispatch(availableApi.endpoints.listAvailableJobs.initiate());
  await store.dispatch(myJobsApi.endpoints.listMyJobs.initiate());
  const reads = () =>
    backend.calls.filter((c) => c.method === 'GET' && /\/tester\/(available|my)-jobs/.test(c.url))
      .length;
  const shown = () => ({
    available: availableApi.endpoints.listAvailableJobs
      .select()(store.getState())
      .data?.jobs.map((j) => j.id),
    mine: myJobsApi.endpoints.listMyJobs
      .select()(store.getState())
      .data?.jobs.map((j) => `${j.id}:${j.status}`),
  });
  return { store, backend, reads, shown };
}

/** Lets the cache's own follow-ups (refetches it started) run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  resetStorage();
  setToken('t');
});

describe("the tester's job lists follow the server's answers without reading the lists again", () => {
  it('a claim moves the job from Available Jobs to My Jobs (with the rest of its pack gone) and reads no list', async () => {
    const claimed = jobView({ id: 'c', status: 'claimed', pack_id: 'p1' });
    const tab = await testerTab(() => ({ body: { job: claimed } }));
    expect(tab.reads()).toBe(2);
    // The server gave another slot of the pack than the one clicked.
    await tab.store.dispatch(claimApi.endpoints.claimJob.initiate('b'));
    await settle();
    expect(tab.shown()).toEqual({ available: ['a'], mine: ['c:claimed', 'old:completed'] });
    // The live echo of the same claim (the job, then "no longer available") changes nothing.
    tab.store.dispatch(
      applyLiveEffect(
        liveEffect(
          'job',
          {
            job_id: 'c',
            status: 'claimed',
            payment_status: 'paid',
            event: 'JobClaimed',
            job: claimed,
          },
          tester,
        ),
      ),
    );
    tab.store.dispatch(
      applyLiveEffect(liveEffect('available', { job_id: 'c', action: 'removed' }, tester)),
    );
    await settle();
    expect(tab.reads()).toBe(2);
    expect(tab.backend.calls.filter((c) => c.url.includes('/submission'))).toEqual([]);
  });

  it('a refused claim (someone was faster) reads the page holding the job again', async () => {
    const tab = await testerTab(() => ({
      status: 409,
      body: { detail: 'This job has already been claimed.', code: 'job_taken' },
    }));
    await tab.store.dispatch(claimApi.endpoints.claimJob.initiate('a'));
    await settle();
    expect(tab.backend.calls.filter((c) => c.url.includes('/tester/available-jobs')).length).toBe(
      2,
    );
    expect(tab.backend.calls.filter((c) => c.url.includes('/tester/my-jobs')).length).toBe(1);
  });

  it("another tester's claim takes the job out of Available Jobs; a new job reads the page again", async () => {
    const tab = await testerTab(() => ({ status: 500 }));
    tab.store.dispatch(
      applyLiveEffect(liveEffect('available', { job_id: 'a', action: 'removed' }, tester)),
    );
    await settle();
    expect(tab.shown().available).toEqual(['b', 'c']);
    expect(tab.reads()).toBe(2);
    tab.store.dispatch(
      applyLiveEffect(liveEffect('available', { job_id: 'z', action: 'added' }, tester)),
    );
    await settle();
    expect(tab.reads()).toBe(3);
  });

  it('a submission answer and an acceptance message update My Jobs in place; a released job leaves it', async () => {
    const tab = await testerTab(() => ({ status: 500 }));
    const mine = jobView({ id: 'm', status: 'claimed', created_at: '2030-01-02T00:00:00Z' });
    tab.store.dispatch(
      applyLiveEffect(
        liveEffect(
          'job',
          {
            job_id: 'm',
            status: 'claimed',
            payment_status: 'paid',
            event: 'JobClaimed',
            job: mine,
          },
          tester,
        ),
      ),
    );
    tab.store.dispatch(afterSubmit({ job: { ...mine, status: 'submitted' } }));
    await settle();
    expect(tab.shown().mine).toEqual(['m:submitted', 'old:completed']);
    tab.store.dispatch(
      applyLiveEffect(
        liveEffect(
          'job',
          {
            job_id: 'old',
            status: 'open',
            payment_status: 'paid',
            event: 'JobReleased',
            job: open('old'),
          },
          tester,
        ),
      ),
    );
    await settle();
    expect(tab.shown().mine).toEqual(['m:submitted']);
    expect(tab.reads()).toBe(2);
  });
});
