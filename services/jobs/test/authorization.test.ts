import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  admin,
  api,
  paidJob,
  poster,
  startHarness,
  tester,
  type Harness,
  type Person,
} from './helpers.js';

// Route x role -> expected status, against one claimed job (poster = owner, tester = holder).
let h: Harness;
let who: Record<string, Person | undefined>;
let jobId: string;
beforeAll(async () => {
  h = await startHarness('authz');
  const owner = await poster(h);
  const holder = await tester(h);
  who = {
    anon: undefined,
    owner,
    otherPoster: await poster(h),
    holder,
    otherTester: await tester(h),
    admin: await admin(h),
  };
  jobId = (await paidJob(h, owner)).id;
  expect((await api(h, 'POST', `/api/jobs/${jobId}/claim`, holder.token)).status).toBe(200);
});
afterAll(async () => {
  await h?.close();
});

type Row = [method: string, path: () => string, body: unknown, expected: Record<string, number>];
const matrix: Row[] = [
  [
    'GET',
    () => '/api/jobs',
    undefined,
    { anon: 401, owner: 200, otherPoster: 200, holder: 403, otherTester: 403, admin: 200 },
  ],
  ['POST', () => '/api/jobs', {}, { anon: 401, owner: 400, holder: 403, admin: 400 }],
  [
    'GET',
    () => '/api/tester/available-jobs',
    undefined,
    { anon: 401, owner: 403, holder: 200, admin: 403 },
  ],
  [
    'GET',
    () => '/api/tester/my-jobs',
    undefined,
    { anon: 401, owner: 403, holder: 200, admin: 403 },
  ],
  [
    'POST',
    () => `/api/jobs/${jobId}/checkout`,
    undefined,
    { anon: 401, otherPoster: 403, holder: 403, owner: 409, admin: 409 },
  ],
  [
    'POST',
    () => `/api/jobs/${jobId}/claim`,
    undefined,
    { anon: 401, owner: 403, admin: 403, otherTester: 409 },
  ],
  [
    'POST',
    () => `/api/jobs/${jobId}/accept`,
    undefined,
    { anon: 401, owner: 403, otherPoster: 403, otherTester: 409, admin: 400 },
  ],
  [
    'POST',
    () => `/api/admin/assign/${jobId}/${who.otherTester!.id}`,
    undefined,
    { anon: 401, owner: 403, holder: 403, admin: 409 },
  ],
  [
    'POST',
    () => `/api/jobs/${jobId}/submit-work`,
    undefined,
    { anon: 401, owner: 403, admin: 403, otherTester: 403 },
  ],
  [
    'POST',
    () => `/api/jobs/${jobId}/submissions`,
    undefined,
    { anon: 401, otherPoster: 403, otherTester: 403 },
  ],
  [
    'GET',
    () => `/api/jobs/${jobId}/submission`,
    undefined,
    { anon: 401, otherPoster: 403, otherTester: 403, owner: 404, holder: 404, admin: 404 },
  ],
  [
    'POST',
    () => `/api/jobs/${jobId}/review`,
    { decision: 'accept' },
    { anon: 401, otherPoster: 403, holder: 403, owner: 409, admin: 409 },
  ],
  [
    'PATCH',
    () => `/api/jobs/${jobId}/complete`,
    undefined,
    { anon: 401, owner: 403, holder: 403, admin: 409 },
  ],
  ['POST', () => '/internal/jobs/clear', {}, { anon: 401, owner: 401, admin: 401 }],
  ['GET', () => '/internal/jobs/clear-preview', undefined, { anon: 401, owner: 401, admin: 401 }],
];

describe('authorization matrix', () => {
  const cases = matrix.flatMap(([method, path, body, expected]) =>
    Object.entries(expected).map(([role, status]) => [method, path, body, role, status] as const),
  );
  it.each(cases)('%s %p as %s -> %s', async (method, path, body, role, status) => {
    const r = await api(h, method, path(), who[role]?.token, body);
    expect(r.status).toBe(status);
    expect(typeof r.body?.detail === 'string' || r.status < 300).toBe(true);
  });
});
