import '../../../test/setup';
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { JobView } from '@htm/contracts/jobs';
import { cacheStore } from '../../../test/cache-store';
import { applyLiveEffect, liveEffect } from '../../../lib/live';
import { reviewApi } from '../../../lib/review-api';
import { setToken } from '../../../lib/tokens';
import { jobView } from '../../../test/job-view';
import { mockFetch, resetStorage, type Call, type FakeResponseInit } from '../../../test/setup';
import { listJobsApi } from './list-jobs';

const poster = { type: 'poster' as const };
const rating = { stars: 5, comment: null, created_at: '2030-01-03T00:00:00Z' };
const submitted = jobView({ id: 'j1', status: 'submitted', rating: null });
const older = jobView({
  id: 'j0',
  status: 'completed',
  created_at: '2029-01-01T00:00:00Z',
  rating,
});

/** A poster's tab with their job list loaded; `review` answers POST /review. */
async function posterTab(review: (c: Call) => FakeResponseInit | Promise<FakeResponseInit>) {
  const backend = mockFetch((c) => {
    if (c.url.endsWith('/api/jobs')) return { body: { jobs: [submitted, older] } };
    if (c.url.endsWith('/review')) return review(c);
    return { status: 404, body: { detail: 'no', code: 'not_found' } };
  });
  const store = cacheStore();
  await store.dispatch(listJobsApi.endpoints.listJobs.initiate());
  const reads = () => backend.calls.filter((c) => c.url.endsWith('/api/jobs')).length;
  const jobs = () => listJobsApi.endpoints.listJobs.select()(store.getState()).data ?? [];
  const message = (job: JobView, event: string) =>
    store.dispatch(
      applyLiveEffect(
        liveEffect(
          'job',
          { job_id: job.id, status: job.status, payment_status: 'paid', event, job },
          poster,
        ),
      ),
    );
  return { store, reads, jobs, message };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  resetStorage();
  setToken('t');
});

describe("the poster's job list follows live messages and review answers without reading it again", () => {
  it('a live message puts the job as it now is into the list (keeping the rating), and a new job at the top', async () => {
    const tab = await posterTab(() => ({ status: 500 }));
    // The view a message carries has no rating (the poster's list adds it).
    const later = jobView({ id: 'j0', status: 'completed', created_at: older.created_at });
    tab.message({ ...later, completed_at: '2030-01-02T00:00:00Z' }, 'SubmissionAccepted');
    const fresh = jobView({ id: 'j2', status: 'open', created_at: '2031-01-01T00:00:00Z' });
    tab.message(fresh, 'JobClaimed');
    await settle();
    expect(tab.jobs().map((j) => j.id)).toEqual(['j2', 'j1', 'j0']);
    expect(tab.jobs()[2]).toMatchObject({ completed_at: '2030-01-02T00:00:00Z', rating });
    expect(tab.reads()).toBe(1);
  });

  it('a message without the job (a payment) reads the list again', async () => {
    const tab = await posterTab(() => ({ status: 500 }));
    tab.store.dispatch(
      applyLiveEffect(
        liveEffect(
          'job',
          { job_id: 'j1', status: 'open', payment_status: 'paid', event: 'JobPaid' },
          poster,
        ),
      ),
    );
    await settle();
    expect(tab.reads()).toBe(2);
  });

  it('an accept shows completed at once, then the answer; the live echo reads nothing', async () => {
    let answer: (r: FakeResponseInit) => void = () => undefined;
    const tab = await posterTab(() => new Promise((r) => (answer = r)));
    const done = tab.store.dispatch(
      reviewApi.endpoints.reviewJob.initiate({ jobId: 'j1', decision: 'accept' }),
    );
    await settle();
    expect(tab.jobs()[0]!.status).toBe('completed');
    const accepted = {
      ...submitted,
      status: 'completed' as const,
      completed_at: '2030-01-05T00:00:00Z',
    };
    answer({ body: { payment_processed: true, revision_count: 0, job: accepted } });
    await done;
    await settle();
    expect(tab.jobs()[0]).toMatchObject({
      status: 'completed',
      completed_at: '2030-01-05T00:00:00Z',
    });
    tab.message(accepted, 'SubmissionAccepted');
    await settle();
    expect(tab.reads()).toBe(1);
  });

  it('a refused review undoes what it showed and reads the list again', async () => {
    const tab = await posterTab(() => ({
      status: 409,
      body: {
        detail: 'This job changed while you were reviewing. Please reload.',
        code: 'job_changed',
      },
    }));
    await tab.store.dispatch(
      reviewApi.endpoints.reviewJob.initiate({
        jobId: 'j1',
        decision: 'request_revision',
        reason: 'More please',
      }),
    );
    await settle();
    expect(tab.jobs()[0]).toMatchObject({ status: 'submitted', revision_count: 0 });
    expect(tab.reads()).toBe(2);
  });
});
