/**
 * Every route of ARCHITECTURE.md's ownership table x every kind of caller -> the status the
 * gateway + owning service must answer. `test/authorization-matrix.test.ts` drives it through
 * the gateway against the running services (OWASP authorization testing automation).
 *
 * Fixtures: `submitted` is the owner's paid job holding the tester's submission, `claimed` is
 * another of the owner's paid jobs the tester holds now, `open` is a paid job nobody holds.
 * Bodies are chosen so allowed callers get an answer that changes nothing important.
 */
export type Caller = 'anon' | 'owner' | 'otherPoster' | 'unapprovedTester' | 'tester' | 'admin';
export const CALLERS: Caller[] = [
  'anon',
  'owner',
  'otherPoster',
  'unapprovedTester',
  'tester',
  'admin',
];

export interface Fixture {
  submitted: string;
  claimed: string;
  open: string;
  sessionId: string;
  fileUrl: string;
  testerId: string;
  unapprovedTesterId: string;
}

export interface MatrixRow {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: (f: Fixture) => string;
  body?: unknown;
  expect: Record<Caller, number>;
}

const all = (
  status: number,
  overrides: Partial<Record<Caller, number>> = {},
): Record<Caller, number> => ({
  anon: status,
  owner: status,
  otherPoster: status,
  unapprovedTester: status,
  tester: status,
  admin: status,
  ...overrides,
});
const adminOnly = (adminStatus = 200) => all(403, { anon: 401, admin: adminStatus });

export const MATRIX: MatrixRow[] = [
  // identity
  {
    method: 'GET',
    path: () => '/api/auth/dev/login?email=matrix.someone@gmail.com',
    expect: all(302),
  },
  { method: 'POST', path: () => '/api/auth/refresh', expect: all(401) },
  { method: 'POST', path: () => '/api/auth/session', body: { session_id: 'x' }, expect: all(401) },
  { method: 'GET', path: () => '/api/me', expect: all(200, { anon: 401 }) },
  // "Your data, your call": the caller's own export and deletion; the admin's view and runs for a user.
  { method: 'GET', path: () => '/api/me/privacy', expect: all(200, { anon: 401 }) },
  {
    method: 'POST',
    path: () => '/api/me/deletion',
    body: { email: 'not.mine@gmail.com' },
    expect: all(400, { anon: 401, admin: 403 }),
  },
  {
    method: 'GET',
    path: () => '/api/me/exports/00000000-0000-4000-8000-000000000000/download?expires=1&sig=x',
    expect: all(403),
  },
  { method: 'GET', path: () => '/api/admin/privacy', expect: adminOnly() },
  {
    method: 'POST',
    path: () => '/api/admin/users/00000000-0000-4000-8000-000000000000/export',
    expect: adminOnly(404),
  },
  {
    method: 'POST',
    path: (f) => `/api/admin/users/${f.testerId}/deletion`,
    body: { email: 'not.theirs@gmail.com' },
    expect: adminOnly(400),
  },
  { method: 'GET', path: () => '/api/auth/sessions', expect: all(200, { anon: 401 }) },
  // Nobody can end a sign-in that is not their own (an unknown id answers the same 404).
  {
    method: 'DELETE',
    path: () => '/api/auth/sessions/00000000-0000-4000-8000-000000000000',
    expect: all(404, { anon: 401 }),
  },
  { method: 'POST', path: () => '/api/auth/logout-all', expect: all(401) },
  {
    method: 'POST',
    path: () => '/api/users/init',
    body: { type: 'poster', location: 'USA' },
    expect: all(409, { anon: 401, admin: 409 }),
  },
  // A body that changes nothing in the access token (a country change would make the caller's later tokens stale).
  {
    method: 'PATCH',
    path: () => '/api/users/profile',
    body: { assistive_tech: [] },
    expect: all(403, { anon: 401, unapprovedTester: 200, tester: 200 }),
  },
  { method: 'GET', path: () => '/api/admin/testers', expect: adminOnly() },
  { method: 'GET', path: () => '/api/admin/available-testers', expect: adminOnly() },
  {
    method: 'PATCH',
    path: (f) => `/api/admin/approve-tester/${f.unapprovedTesterId}`,
    body: { approved: false },
    expect: adminOnly(),
  },
  // jobs
  {
    method: 'GET',
    path: () => '/api/jobs',
    expect: all(403, { anon: 401, owner: 200, otherPoster: 200, admin: 200 }),
  },
  {
    method: 'POST',
    path: () => '/api/jobs',
    body: {},
    expect: all(403, { anon: 401, owner: 400, otherPoster: 400, admin: 400 }),
  },
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.submitted}/checkout`,
    expect: all(403, { anon: 401, owner: 409, admin: 409 }),
  },
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.open}/claim`,
    expect: all(403, { anon: 401, tester: 409 }),
  },
  // Packs (issue 33): posters and the admin; testers never (a pack's own poster: test/packs.test.ts).
  {
    method: 'GET',
    path: () => '/api/packs/00000000-0000-4000-8000-000000000000',
    expect: all(403, { anon: 401, owner: 404, otherPoster: 404, admin: 404 }),
  },
  // The "same problem?" step (issue #51): only the tester holding the job (a job outside a pack:
  // nothing to compare, empty lists); the poster, another tester and the admin 403.
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.claimed}/closest-findings`,
    body: { texts: ['The pay button does nothing'] },
    expect: all(403, { anon: 401, tester: 200 }),
  },
  // The admin assigns through accept with {tester_id} (issue #19): without one, 400 on the field.
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.open}/accept`,
    expect: all(403, { anon: 401, tester: 409, admin: 400 }),
  },
  { method: 'PATCH', path: (f) => `/api/jobs/${f.claimed}/complete`, expect: adminOnly(409) },
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.claimed}/submit-work`,
    expect: all(403, { anon: 401, tester: 400 }),
  },
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.claimed}/submissions`,
    expect: all(403, { anon: 401, tester: 400 }),
  },
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.submitted}/retest`,
    expect: all(403, { anon: 401, owner: 409 }),
  },
  {
    method: 'GET',
    path: () => '/api/tester/session-checks',
    expect: all(403, { anon: 401, unapprovedTester: 200, tester: 200 }),
  },
  {
    // Submitted, but its check did not flag it: nothing to replace for free (409) for its poster and the admin.
    method: 'POST',
    path: (f) => `/api/jobs/${f.submitted}/replacement`,
    expect: all(403, { anon: 401, owner: 409, admin: 409 }),
  },
  {
    method: 'GET',
    path: (f) => `/api/jobs/${f.submitted}/before-after`,
    expect: all(403, { anon: 401, owner: 404, tester: 404, admin: 404 }),
  },
  {
    // Reports released after the job went to another tester: the owner's and the admin's (none here).
    method: 'GET',
    path: (f) => `/api/jobs/${f.submitted}/released-reports`,
    expect: all(403, { anon: 401, owner: 200, admin: 200 }),
  },
  {
    method: 'GET',
    path: (f) => `/api/jobs/${f.submitted}/submission`,
    expect: all(403, { anon: 401, owner: 200, tester: 200, admin: 200 }),
  },
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.submitted}/review`,
    body: { decision: 'reject', reason: 'x' },
    expect: all(403, { anon: 401, owner: 400, admin: 400 }),
  },
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.submitted}/rating`,
    body: { stars: 5 },
    expect: all(403, { anon: 401, owner: 409 }),
  },
  {
    method: 'GET',
    path: () => '/api/tester/available-jobs',
    expect: all(403, { anon: 401, tester: 200 }),
  },
  {
    method: 'GET',
    path: () => '/api/tester/my-jobs',
    expect: all(403, { anon: 401, unapprovedTester: 200, tester: 200 }),
  },
  {
    method: 'GET',
    path: () => '/api/tester/standing',
    expect: all(403, { anon: 401, unapprovedTester: 200, tester: 200 }),
  },
  {
    method: 'GET',
    path: (f) => f.fileUrl,
    expect: all(403, { anon: 401, tester: 200, admin: 200 }),
  },
  // findings leave the product (issue 32): the submitted fixture's report (locked: the preview)
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.submitted}/share`,
    body: { expires_in_days: 3 },
    expect: all(403, { anon: 401, owner: 201, admin: 201 }),
  },
  {
    method: 'GET',
    path: (f) => `/api/jobs/${f.submitted}/report.pdf`,
    expect: all(403, { anon: 401, owner: 200, admin: 200 }),
  },
  {
    method: 'DELETE',
    path: (f) => `/api/jobs/${f.submitted}/share`,
    expect: all(403, { anon: 401, owner: 204, admin: 204 }),
  },
  { method: 'GET', path: () => `/api/shared/${'A'.repeat(43)}`, expect: all(404) },
  { method: 'GET', path: () => `/api/shared/${'A'.repeat(43)}/recording`, expect: all(404) },
  {
    method: 'GET',
    path: () => `/api/shared/${'A'.repeat(43)}/recordings/rec`,
    expect: all(404),
  },
  // A pack's one link and PDF (issue #51): posters and the admin (a pack's own poster: share-recording.test.ts).
  ...(['POST', 'DELETE'] as const).map((method): MatrixRow => ({
    method,
    path: () => '/api/packs/00000000-0000-4000-8000-000000000000/share',
    body: method === 'POST' ? {} : undefined,
    expect: all(403, { anon: 401, owner: 404, otherPoster: 404, admin: 404 }),
  })),
  {
    method: 'GET',
    path: () => '/api/packs/00000000-0000-4000-8000-000000000000/report.pdf',
    expect: all(403, { anon: 401, owner: 404, otherPoster: 404, admin: 404 }),
  },
  { method: 'GET', path: () => `/r/${'A'.repeat(43)}`, expect: all(404) },
  {
    method: 'POST',
    path: () => '/api/webhook-endpoints',
    body: {},
    expect: all(403, { anon: 401, owner: 400, otherPoster: 400, admin: 400 }),
  },
  {
    method: 'GET',
    path: () => '/api/webhook-endpoints',
    expect: all(403, { anon: 401, owner: 200, otherPoster: 200, admin: 200 }),
  },
  {
    method: 'DELETE',
    path: () => '/api/webhook-endpoints/00000000-0000-4000-8000-000000000000',
    expect: all(403, { anon: 401, owner: 404, otherPoster: 404, admin: 404 }),
  },
  {
    method: 'GET',
    path: () => '/api/webhook-endpoints/00000000-0000-4000-8000-000000000000/deliveries',
    expect: all(403, { anon: 401, owner: 404, otherPoster: 404, admin: 404 }),
  },
  {
    method: 'POST',
    path: () => '/api/webhook-endpoints/00000000-0000-4000-8000-000000000000/test',
    expect: all(403, { anon: 401, owner: 404, otherPoster: 404, admin: 404 }),
  },
  {
    method: 'POST',
    path: () =>
      '/api/webhook-endpoints/00000000-0000-4000-8000-000000000000/deliveries/00000000-0000-4000-8000-000000000000/redeliver',
    expect: all(403, { anon: 401, owner: 404, otherPoster: 404, admin: 404 }),
  },
  {
    method: 'GET',
    path: () => '/api/trackers',
    expect: all(403, { anon: 401, owner: 200, otherPoster: 200, admin: 200 }),
  },
  {
    method: 'PUT',
    path: () => '/api/trackers/github',
    body: {},
    expect: all(403, { anon: 401, owner: 400, otherPoster: 400, admin: 400 }),
  },
  {
    method: 'DELETE',
    path: () => '/api/trackers/jira',
    expect: all(403, { anon: 401, owner: 204, otherPoster: 204, admin: 204 }),
  },
  {
    method: 'GET',
    path: (f) => `/api/jobs/${f.submitted}/issues`,
    expect: all(403, { anon: 401, owner: 200, admin: 200 }),
  },
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.submitted}/findings/0/issue`,
    body: { tracker: 'github' },
    expect: all(403, { anon: 401, owner: 409, admin: 409 }),
  },
  {
    method: 'POST',
    path: (f) => `/api/jobs/${f.submitted}/issue`,
    body: { tracker: 'github' },
    expect: all(403, { anon: 401, owner: 409, admin: 409 }),
  },
  {
    method: 'POST',
    path: (f) => `/api/admin/assign/${f.open}/${f.unapprovedTesterId}`,
    expect: adminOnly(409),
  },
  // Recordings (tus, issue #30): testers only; without Upload-Metadata's job_id a tester gets 400.
  {
    method: 'POST',
    path: () => '/api/recordings',
    body: {},
    expect: all(403, { anon: 401, unapprovedTester: 400, tester: 400 }),
  },
  {
    method: 'PATCH',
    path: () => '/api/recordings/nosuchrecording',
    body: {},
    expect: all(403, { anon: 401, unapprovedTester: 404, tester: 404 }),
  },
  { method: 'GET', path: () => '/api/recordings/nosuchrecording', expect: all(404, { anon: 401 }) },
  // payments
  {
    method: 'GET',
    path: (f) => `/api/payments/checkout/status/${f.sessionId}`,
    expect: all(403, { anon: 401, owner: 200, admin: 200 }),
  },
  { method: 'POST', path: () => '/api/payments/webhook', body: { id: 'evt_x' }, expect: all(400) },
  {
    method: 'GET',
    path: () => '/api/tester/my-earnings',
    expect: all(403, { anon: 401, unapprovedTester: 200, tester: 200 }),
  },
  {
    method: 'GET',
    path: () => '/api/tester/payout-account',
    expect: all(403, { anon: 401, unapprovedTester: 200, tester: 200 }),
  },
  { method: 'GET', path: () => '/api/admin/financial-overview', expect: adminOnly() },
  { method: 'POST', path: () => '/api/admin/payouts/run', expect: adminOnly() },
  // Appeals (issue #34): testers (released ones too) appeal their own strikes and low ratings; the admin decides.
  {
    method: 'POST',
    path: () => '/api/appeals',
    body: {
      job_id: '00000000-0000-4000-8000-000000000000',
      kind: 'strike',
      message: 'matrix appeal message',
    },
    expect: all(403, { anon: 401, unapprovedTester: 404, tester: 404 }),
  },
  {
    method: 'GET',
    path: () => '/api/appeals',
    expect: all(403, { anon: 401, unapprovedTester: 200, tester: 200 }),
  },
  { method: 'GET', path: () => '/api/admin/appeals', expect: adminOnly() },
  // The admin's queue of failed sessions (#52): admin only; an unknown session is 404.
  { method: 'GET', path: () => '/api/admin/session-checks', expect: adminOnly() },
  {
    method: 'POST',
    path: () => '/api/admin/session-checks/00000000-0000-4000-8000-000000000000/release',
    expect: adminOnly(404),
  },
  {
    method: 'POST',
    path: () => '/api/admin/session-checks/00000000-0000-4000-8000-000000000000/confirm',
    expect: adminOnly(404),
  },
  {
    method: 'POST',
    path: () => '/api/admin/appeals/00000000-0000-4000-8000-000000000000/decision',
    body: { decision: 'uphold' },
    expect: adminOnly(404),
  },
  // Favourite testers (issue #34): posters only; only a tester whose work the poster accepted (the matrix's submission is not accepted yet: 403 not_your_tester).
  {
    method: 'POST',
    path: () => '/api/favourites',
    body: { tester_id: 'matrix-tester-never-accepted' },
    expect: all(403, { anon: 401 }),
  },
  {
    method: 'GET',
    path: () => '/api/favourites',
    expect: all(403, { anon: 401, owner: 200, otherPoster: 200 }),
  },
  {
    method: 'DELETE',
    path: () => '/api/favourites/matrix-tester-never-accepted',
    expect: all(403, { anon: 401, owner: 204, otherPoster: 204 }),
  },
  // Cash-out (issue #34): approved testers only; the matrix's tester has less than $5 pending (409).
  {
    method: 'POST',
    path: () => '/api/tester/cash-out',
    expect: all(403, { anon: 401, tester: 409 }),
  },
  // admin
  {
    method: 'POST',
    path: () => '/api/feedback',
    body: { email: 'm@gmail.com', message: 'matrix' },
    expect: all(201),
  },
  {
    method: 'POST',
    path: () => '/api/leads',
    body: { email: 'm@gmail.com', message: 'matrix' },
    expect: all(201),
  },
  {
    method: 'POST',
    path: () => '/api/telemetry',
    body: { events: [{ name: 'post_job_attempt' }] },
    expect: all(202),
  },
  {
    method: 'POST',
    path: () => '/api/waitlist',
    body: { email: 'm@gmail.com', role: 'Site owner', url: 'https://m.example', note: 'check it' },
    expect: all(201, { anon: 401 }),
  }, // every job request is stored (issue #19)
  { method: 'GET', path: () => '/api/admin/waitlist', expect: adminOnly() },
  {
    method: 'PATCH',
    path: () => '/api/admin/waitlist/00000000-0000-4000-8000-000000000000',
    body: { approved: true },
    expect: adminOnly(404),
  },
  // site-check: the poster, the tester holding the job and the admin (decided by site-check from events)
  {
    method: 'GET',
    path: (f) => `/api/jobs/${f.claimed}/site-check`,
    expect: all(403, { anon: 401, owner: 200, tester: 200, admin: 200 }),
  },
  {
    method: 'GET',
    path: (f) => `/api/jobs/${f.open}/site-check`,
    expect: all(403, { anon: 401, owner: 200, admin: 200 }),
  },
  // analytics
  {
    method: 'GET',
    path: () => '/api/admin/insights?from=2026-03-01&to=2026-03-31',
    expect: adminOnly(),
  },
  { method: 'GET', path: () => '/api/public/proof', expect: all(200) },
  // notifications
  { method: 'GET', path: () => '/api/notifications/preferences', expect: all(200, { anon: 401 }) },
  {
    method: 'PATCH',
    path: () => '/api/notifications/preferences',
    body: {},
    expect: all(200, { anon: 401 }),
  },
  { method: 'GET', path: () => '/api/notifications/unsubscribe?token=x.y', expect: all(400) },
  { method: 'GET', path: () => '/api/admin/leads', expect: adminOnly() },
  { method: 'GET', path: () => '/api/admin/feedback', expect: adminOnly() },
  { method: 'POST', path: () => '/api/admin/clear-jobs/preview', expect: adminOnly() },
  // Without the confirmation of a preview even the admin is refused (nothing is deleted).
  { method: 'POST', path: () => '/api/admin/clear-jobs', expect: adminOnly(400) },
  { method: 'GET', path: () => '/api/admin/audit', expect: adminOnly() },
  { method: 'GET', path: () => '/api/admin/audit.csv', expect: adminOnly() },
  { method: 'GET', path: () => '/api/admin/dead-letters', expect: adminOnly() },
  { method: 'POST', path: () => '/api/admin/dead-letters/replay', expect: adminOnly() },
];
