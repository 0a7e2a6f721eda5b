import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  startHarness,
  startJobsStandIn,
  type AdminHarness,
  type JobsStandIn,
} from './support.js';

type Who = 'anonymous' | 'poster' | 'tester' | 'unassigned' | 'admin';

let h: AdminHarness;
let jobs: JobsStandIn;
let entryId: string;
const tokens: Partial<Record<Who, string>> = {};

beforeAll(async () => {
  jobs = await startJobsStandIn();
  h = await startHarness('admin_authz', { JOBS_URL: jobs.url });
  tokens.poster = await h.issuer.mint({ type: 'poster' });
  tokens.tester = await h.issuer.mint({ type: 'tester', approved: true });
  tokens.unassigned = await h.issuer.mint({ type: null });
  tokens.admin = await h.issuer.mint({ type: 'admin', email: 'admin@gmail.com' });
  const [row] = await h.svc.ctx.dbHandle.query<{ id: string }>(
    "INSERT INTO admin.waitlist_entries (email, role, kind) VALUES ('matrix@gmail.com', 'Tester (student)', 'signup') RETURNING id",
  );
  entryId = row.id;
});
afterAll(async () => {
  await h?.close();
  await jobs?.close();
});

/** Route x caller -> expected status (OWASP authorization matrix). */
const ADMIN_ONLY: Record<Who, number> = {
  anonymous: 401,
  poster: 403,
  tester: 403,
  unassigned: 403,
  admin: 200,
};
const matrix: {
  route: string;
  method: string;
  path: () => string;
  body?: unknown;
  expect: Record<Who, number>;
}[] = [
  { route: 'list waitlist', method: 'GET', path: () => '/api/admin/waitlist', expect: ADMIN_ONLY },
  {
    route: 'export waitlist',
    method: 'GET',
    path: () => '/api/admin/waitlist?export=csv',
    expect: ADMIN_ONLY,
  },
  {
    route: 'approve signup',
    method: 'PATCH',
    path: () => `/api/admin/waitlist/${entryId}`,
    body: { approved: true },
    expect: ADMIN_ONLY,
  },
  { route: 'list leads', method: 'GET', path: () => '/api/admin/leads', expect: ADMIN_ONLY },
  {
    route: 'export leads',
    method: 'GET',
    path: () => '/api/admin/leads?export=csv',
    expect: ADMIN_ONLY,
  },
  { route: 'list feedback', method: 'GET', path: () => '/api/admin/feedback', expect: ADMIN_ONLY },
  {
    route: 'preview clear jobs',
    method: 'POST',
    path: () => '/api/admin/clear-jobs/preview',
    expect: ADMIN_ONLY,
  },
  // Without the confirmation of a preview the admin is refused too (400), and jobs is never asked.
  {
    route: 'clear jobs',
    method: 'POST',
    path: () => '/api/admin/clear-jobs',
    expect: { ...ADMIN_ONLY, admin: 400 },
  },
  { route: 'audit log', method: 'GET', path: () => '/api/admin/audit', expect: ADMIN_ONLY },
  { route: 'audit log CSV', method: 'GET', path: () => '/api/admin/audit.csv', expect: ADMIN_ONLY },
  {
    route: 'dead letters',
    method: 'GET',
    path: () => '/api/admin/dead-letters',
    expect: ADMIN_ONLY,
  },
  {
    route: 'replay dead letters',
    method: 'POST',
    path: () => '/api/admin/dead-letters/replay',
    expect: ADMIN_ONLY,
  },
  {
    route: 'job request',
    method: 'POST',
    path: () => '/api/waitlist',
    body: (who: Who) => ({
      email: `${who}@gmail.com`,
      role: 'Site owner',
      url: 'https://x.example',
      note: 'check it',
    }),
    expect: { anonymous: 401, poster: 201, tester: 201, unassigned: 201, admin: 201 },
  },
  {
    route: 'tester signup',
    method: 'POST',
    path: () => '/api/waitlist',
    body: (who: Who) => ({ email: `${who}@gmail.com`, role: 'Tester (student)' }),
    expect: { anonymous: 201, poster: 201, tester: 201, unassigned: 201, admin: 201 },
  },
  {
    route: 'lead',
    method: 'POST',
    path: () => '/api/leads',
    body: { email: 'l@x.com', message: 'hi' },
    expect: { anonymous: 201, poster: 201, tester: 201, unassigned: 201, admin: 201 },
  },
  {
    route: 'feedback',
    method: 'POST',
    path: () => '/api/feedback',
    body: { email: 'f@x.com', message: 'hi' },
    expect: { anonymous: 201, poster: 201, tester: 201, unassigned: 201, admin: 201 },
  },
  {
    route: 'telemetry',
    method: 'POST',
    path: () => '/api/telemetry',
    body: { events: [{ name: 'post_job_attempt' }] },
    expect: { anonymous: 202, poster: 202, tester: 202, unassigned: 202, admin: 202 },
  },
];

describe('authorization matrix of the admin service', () => {
  it('gives each caller the expected status on every route', async () => {
    const got: string[] = [];
    const want: string[] = [];
    for (const row of matrix) {
      for (const who of Object.keys(row.expect) as Who[]) {
        const body =
          typeof row.body === 'function' ? (row.body as (w: Who) => unknown)(who) : row.body;
        const res = await call(h, row.method, row.path(), { token: tokens[who], body });
        got.push(`${row.route} as ${who}: ${res.status}`);
        want.push(`${row.route} as ${who}: ${row.expect[who]}`);
        if (res.status === 401 || res.status === 403)
          expect(res.body).toMatchObject({ detail: expect.any(String), code: expect.any(String) });
      }
    }
    expect(got).toEqual(want);
    // Only the admin's preview reached jobs; no clear without a confirmation.
    expect(jobs.previews).toBe(1);
    expect(jobs.calls).toHaveLength(0);
  });

  it('refuses tokens signed by someone else, for another audience, or malformed', async () => {
    const { createTestIssuer } = await import('@htm/service-kit/testing');
    const stranger = await createTestIssuer();
    try {
      const forged = await stranger.mint({ type: 'admin' });
      expect((await call(h, 'GET', '/api/admin/waitlist', { token: forged })).status).toBe(401);
    } finally {
      await stranger.close();
    }
    const otherAud = await h.issuer.mint({ type: 'admin', aud: 'someone-else' });
    expect((await call(h, 'GET', '/api/admin/waitlist', { token: otherAud })).status).toBe(401);
    const res = await call(h, 'GET', '/api/admin/waitlist', {
      headers: { authorization: 'Basic YWRtaW46YWRtaW4=' },
    });
    expect(res.status).toBe(401);
  });
});
