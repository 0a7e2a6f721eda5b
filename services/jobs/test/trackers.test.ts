import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { listen, type RunningServer } from '@htm/service-kit';
import { TRACKER_MESSAGES, type SharedReportView, type TrackersView } from '@htm/contracts';
import { createJiraIssue } from '../src/providers/trackers.js';
import { reportIssueDraft } from '../src/domain/trackers.js';
import {
  api,
  paidJob,
  poster,
  startHarness,
  tester,
  type Harness,
  type Person,
} from './helpers.js';

/**
 * Local stand-ins that check requests as GitHub's and Jira Cloud's REST APIs do: the auth header,
 * JSON, the path, the required fields; 401 / 404 / 422 (Jira: 400) like the real ones.
 */
interface Seen {
  path: string;
  auth: string | undefined;
  body: Record<string, unknown>;
}
async function githubStandIn() {
  /** Issues made, and the connection checks (apart). */
  const seen: Seen[] = [];
  const checked: Seen[] = [];
  /** Tokens revoked and repositories deleted after they were connected. */
  const gone = { tokens: new Set<string>(), repos: new Set<string>() };
  const app = express();
  app.use(express.json());
  let n = 0;
  const authed = (auth: string | undefined) =>
    auth === 'token ghp_good' || auth === 'token ghp_readonly';
  // GET /repos/{owner}/{repo}: what connecting checks (the repository as the token sees it).
  app.get('/repos/:owner/:repo', (req, res) => {
    checked.push({ path: req.path, auth: req.headers.authorization, body: {} });
    if (!authed(req.headers.authorization))
      return void res
        .status(401)
        .json({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    const repo = `${req.params.owner}/${req.params.repo}`;
    if (!['acme/site', 'acme/strict', 'acme/noissues'].includes(repo))
      return void res.status(404).json({ message: 'Not Found' });
    const write = req.headers.authorization === 'token ghp_good';
    res.json({
      full_name: repo,
      has_issues: repo !== 'acme/noissues',
      permissions: { admin: false, maintain: false, push: write, triage: write, pull: true },
    });
  });
  app.post('/repos/:owner/:repo/issues', (req, res) => {
    seen.push({ path: req.path, auth: req.headers.authorization, body: req.body });
    if (
      req.headers.authorization !== 'token ghp_good' ||
      gone.tokens.has(req.headers.authorization)
    )
      return void res
        .status(401)
        .json({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    const repo = `${req.params.owner}/${req.params.repo}`;
    if (gone.repos.has(repo)) return void res.status(404).json({ message: 'Not Found' });
    if (repo === 'acme/strict')
      return void res.status(422).json({
        message: 'Validation Failed',
        errors: [{ resource: 'Issue', code: 'custom', message: 'Issues are disabled' }],
      });
    if (repo !== 'acme/site') return void res.status(404).json({ message: 'Not Found' });
    if (
      typeof req.body?.title !== 'string' ||
      !req.body.title ||
      !Array.isArray(req.body.labels ?? [])
    )
      return void res.status(422).json({ message: 'Validation Failed' });
    n++;
    res.status(201).json({ number: n, html_url: `https://github.com/${repo}/issues/${n}` });
  });
  const server: RunningServer = await listen(app, 0);
  return { url: server.url, seen, checked, gone, close: () => server.close() };
}
async function jiraStandIn() {
  const seen: Seen[] = [];
  const checked: Seen[] = [];
  const app = express();
  app.use(express.json());
  let n = 0;
  const good = `Basic ${Buffer.from('pat@example.com:jira-good').toString('base64')}`;
  // What connecting checks: the account (GET myself), then the project as it sees it.
  app.get('/rest/api/3/myself', (req, res) => {
    checked.push({ path: req.path, auth: req.headers.authorization, body: {} });
    if (req.headers.authorization !== good)
      return void res
        .status(401)
        .json({ errorMessages: ['Client must be authenticated to access this resource.'] });
    res.json({ accountId: 'acc-1', emailAddress: 'pat@example.com', active: true });
  });
  app.get('/rest/api/3/project/:key', (req, res) => {
    checked.push({ path: req.path, auth: req.headers.authorization, body: {} });
    if (req.headers.authorization !== good) return void res.status(401).json({});
    if (!['WEB', 'LEGACY'].includes(req.params.key))
      return void res.status(404).json({
        errorMessages: [`No project could be found with key '${req.params.key}'.`],
        errors: {},
      });
    res.json({ id: '10000', key: req.params.key, name: 'Website' });
  });
  app.post('/rest/api/3/issue', (req, res) => {
    seen.push({ path: req.path, auth: req.headers.authorization, body: req.body });
    if (
      req.headers.authorization !==
      `Basic ${Buffer.from('pat@example.com:jira-good').toString('base64')}`
    )
      return void res.status(401).json({ errorMessages: ['Unauthorized'] });
    const f = req.body?.fields ?? {};
    if (f.project?.key !== 'WEB')
      return void res
        .status(400)
        .json({ errorMessages: [], errors: { project: 'Specify a valid project ID or key' } });
    if (
      !f.summary ||
      f.issuetype?.name !== 'Bug' ||
      f.description?.type !== 'doc' ||
      f.description?.version !== 1
    )
      return void res.status(400).json({
        errorMessages: [],
        errors: { summary: 'You must specify a summary of the issue.' },
      });
    n++;
    res.status(201).json({
      id: String(10000 + n),
      key: `WEB-${n}`,
      self: `${req.protocol}://${req.headers.host}/rest/api/3/issue/${10000 + n}`,
    });
  });
  // Jira sites are https only: a certificate of its own, trusted by the service (TRACKER_CA_FILE).
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', path.join(tlsDir, 'key.pem'), '-out', path.join(tlsDir, 'cert.pem')],
      ...['-days', '2', '-subj', '/CN=localhost'],
      ...['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    ],
    { stdio: 'ignore' },
  );
  const server = https.createServer(
    {
      key: readFileSync(path.join(tlsDir, 'key.pem')),
      cert: readFileSync(path.join(tlsDir, 'cert.pem')),
    },
    app,
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    caFile: path.join(tlsDir, 'cert.pem'),
    seen,
    checked,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
const tlsDir = mkdtempSync(path.join(tmpdir(), 'htm-jira-'));

let h: Harness;
let gh: Awaited<ReturnType<typeof githubStandIn>>;
let jira: Awaited<ReturnType<typeof jiraStandIn>>;
beforeAll(async () => {
  gh = await githubStandIn();
  jira = await jiraStandIn();
  h = await startHarness('trackers', {
    GITHUB_API_URL: gh.url,
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    TRACKER_CA_FILE: jira.caFile,
  });
});
afterAll(async () => {
  await h?.close();
  await gh?.close();
  await jira?.close();
  rmSync(tlsDir, { recursive: true, force: true });
});

async function acceptedJob(
  details: Record<string, string> = {},
): Promise<{ jobId: string; p: Person }> {
  const p = await poster(h);
  const t = await tester(h, { name: 'Sam Submitter' });
  const job = await paidJob(h, p);
  expect((await api(h, 'POST', `/api/jobs/${job.id}/claim`, t.token)).status).toBe(200);
  const f = new FormData();
  f.append('feedback_text', 'The signup button is hidden below the fold on mobile.');
  f.append('key_finding_1', 'Signup button hard to find');
  f.append('key_finding_2', 'Password rules shown only after an error');
  for (const [k, v] of Object.entries(details)) f.append(k, v);
  expect((await api(h, 'POST', `/api/jobs/${job.id}/submit-work`, t.token, f)).status).toBe(201);
  expect(
    (await api(h, 'POST', `/api/jobs/${job.id}/review`, p.token, { decision: 'accept' })).status,
  ).toBe(200);
  return { jobId: job.id, p };
}

type Sent = { url: string; code: string; detail: string; finding_index: number | null };

/** PUT /api/trackers/jira for the stand-in's project WEB with the good token. */
const connectJira = (p: Person, siteUrl = jira.url) =>
  api<{ errors: Record<string, string[]> }>(h, 'PUT', '/api/trackers/jira', p.token, {
    site_url: siteUrl,
    email: 'pat@example.com',
    api_token: 'jira-good',
    project_key: 'WEB',
  });

/** PUT /api/trackers/github for `repository` with `token` (the stand-in's good one by default). */
const connectGithub = (p: Person, repository = 'acme/site', token = 'ghp_good') =>
  api<TrackersView>(h, 'PUT', '/api/trackers/github', p.token, { token, repository });

describe('issue trackers', () => {
  it('stores the GitHub token encrypted, never returns it, and makes one issue per finding', async () => {
    const { jobId, p } = await acceptedJob();
    const put = await api<TrackersView>(h, 'PUT', '/api/trackers/github', p.token, {
      token: 'ghp_good',
      repository: 'acme/site',
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ github: { repository: 'acme/site' }, jira: null });
    expect(JSON.stringify((await api(h, 'GET', '/api/trackers', p.token)).body)).not.toContain(
      'ghp_good',
    );
    const [row] = await h.svc.ctx.dbHandle.query<{ secret_enc: string }>(
      "SELECT secret_enc FROM jobs.tracker_credentials WHERE owner_id = $1 AND kind = 'github'",
      [p.id],
    );
    expect(row.secret_enc).toMatch(/^v1\./);
    expect(row.secret_enc).not.toContain('ghp_good');

    const first = await api<Sent>(h, 'POST', `/api/jobs/${jobId}/findings/1/issue`, p.token, {
      tracker: 'github',
    });
    expect(first.status).toBe(201);
    expect(first.body.url).toBe('https://github.com/acme/site/issues/1');
    const again = await api<Sent>(h, 'POST', `/api/jobs/${jobId}/findings/1/issue`, p.token, {
      tracker: 'github',
    });
    expect(again.status).toBe(200);
    expect(again.body.url).toBe(first.body.url);
    expect(gh.seen).toHaveLength(1);
    expect(gh.seen[0].path).toBe('/repos/acme/site/issues');
    expect(gh.seen[0].body.title).toBe('Password rules shown only after an error');
    expect(String(gh.seen[0].body.body)).toContain('https://example.com/signup');
    expect(
      (await api<{ issues: unknown[] }>(h, 'GET', `/api/jobs/${jobId}/issues`, p.token)).body
        .issues,
    ).toEqual([{ finding_index: 1, tracker: 'github', url: first.body.url }]);
    // Another poster cannot send this job's findings.
    const other = await poster(h);
    expect(
      (
        await api(h, 'POST', `/api/jobs/${jobId}/findings/0/issue`, other.token, {
          tracker: 'github',
        })
      ).status,
    ).toBe(403);
  });

  it('makes Jira issues with jira.js against the site the poster named, once', async () => {
    const { jobId, p } = await acceptedJob();
    expect((await connectJira(p)).status).toBe(200);
    const r = await api<Sent>(h, 'POST', `/api/jobs/${jobId}/findings/0/issue`, p.token, {
      tracker: 'jira',
    });
    expect(r.status).toBe(201);
    expect(r.body.url).toBe(`${jira.url}/browse/WEB-1`);
    expect(
      (
        await api<Sent>(h, 'POST', `/api/jobs/${jobId}/findings/0/issue`, p.token, {
          tracker: 'jira',
        })
      ).status,
    ).toBe(200);
    expect(jira.seen).toHaveLength(1);
    expect((jira.seen[0].body.fields as { summary: string }).summary).toBe(
      'Signup button hard to find',
    );
  });

  it('checks the token and the project when connecting, says what failed, and saves nothing', async () => {
    const p = await poster(h);
    const put = (kind: string, body: Record<string, string>) =>
      api<{ detail: string; code: string; errors?: Record<string, string[]> }>(
        h,
        'PUT',
        `/api/trackers/${kind}`,
        p.token,
        body,
      );
    const cases: Array<[string, Record<string, string>, number, string, string, RegExp]> = [
      [
        'github',
        { token: 'ghp_madeup', repository: 'acme/site' },
        400,
        'tracker_unauthorized',
        'token',
        /GitHub refused this token/,
      ],
      [
        'github',
        { token: 'ghp_good', repository: 'acme/missing' },
        400,
        'tracker_not_found',
        'repository',
        /no repository acme\/missing that this token can see/,
      ],
      [
        'github',
        { token: 'ghp_good', repository: 'acme/noissues' },
        400,
        'tracker_issues_disabled',
        'repository',
        /Issues are switched off in acme\/noissues/,
      ],
      [
        'github',
        { token: 'ghp_readonly', repository: 'acme/site' },
        400,
        'tracker_read_only',
        'token',
        /may only read acme\/site/,
      ],
      [
        'jira',
        { site_url: jira.url, email: 'pat@example.com', api_token: 'made-up', project_key: 'WEB' },
        400,
        'tracker_unauthorized',
        'api_token',
        /refused this e-mail and API token/,
      ],
      [
        'jira',
        {
          site_url: jira.url,
          email: 'pat@example.com',
          api_token: 'jira-good',
          project_key: 'NOPE',
        },
        400,
        'tracker_not_found',
        'project_key',
        /no project NOPE that this account can see/,
      ],
      [
        'jira',
        {
          site_url: `${jira.url}/not-jira`,
          email: 'pat@example.com',
          api_token: 'jira-good',
          project_key: 'WEB',
        },
        400,
        'tracker_unreachable',
        'site_url',
        /did not answer as a Jira site/,
      ],
    ];
    for (const [kind, body, status, code, field, detail] of cases) {
      const r = await put(kind, body);
      expect({ kind, body, status: r.status, code: r.body.code }).toEqual({
        kind,
        body,
        status,
        code,
      });
      expect(r.body.detail).toMatch(detail);
      expect(r.body.errors?.[field]?.[0]).toBe(r.body.detail);
    }
    // Each was asked of the tracker itself, with what the poster typed.
    expect(gh.checked.map((c) => `${c.auth} ${c.path}`)).toEqual(
      expect.arrayContaining([
        'token ghp_madeup /repos/acme/site',
        'token ghp_good /repos/acme/missing',
      ]),
    );
    expect(jira.checked.map((c) => c.path)).toEqual(
      expect.arrayContaining(['/rest/api/3/myself', '/rest/api/3/project/NOPE']),
    );
    // Nothing was saved.
    expect((await api<TrackersView>(h, 'GET', '/api/trackers', p.token)).body).toEqual({
      github: null,
      jira: null,
    });
    const rows = await h.svc.ctx.dbHandle.query(
      'SELECT 1 FROM jobs.tracker_credentials WHERE owner_id = $1',
      [p.id],
    );
    expect(rows).toHaveLength(0);
  });

  it('turns 401, 404 and 422 at sending time into sentences the poster can act on, and makes nothing', async () => {
    const { jobId, p } = await acceptedJob();
    const send = () =>
      api<Sent>(h, 'POST', `/api/jobs/${jobId}/findings/0/issue`, p.token, { tracker: 'github' });
    expect((await send()).body.code).toBe('tracker_not_connected');
    // A token that worked when it was connected and was revoked since.
    expect((await connectGithub(p)).status).toBe(200);
    gh.gone.tokens.add('token ghp_good');
    const bad = await send();
    gh.gone.tokens.clear();
    expect(bad.status).toBe(409);
    expect(bad.body).toMatchObject({
      code: 'tracker_unauthorized',
      detail: expect.stringContaining('GitHub refused the token'),
    });
    // A repository deleted since.
    gh.gone.repos.add('acme/site');
    const missing = await send();
    gh.gone.repos.clear();
    expect(missing.body).toMatchObject({
      code: 'tracker_not_found',
      detail: expect.stringContaining('could not find acme/site'),
    });
    await connectGithub(p, 'acme/strict');
    expect((await send()).body).toMatchObject({
      code: 'tracker_rejected',
      detail: 'GitHub refused the issue: Validation Failed',
    });
    // A project the account sees, where Jira refuses the issue.
    await api(h, 'PUT', '/api/trackers/jira', p.token, {
      site_url: jira.url,
      email: 'pat@example.com',
      api_token: 'jira-good',
      project_key: 'LEGACY',
    });
    const j = await api<Sent>(h, 'POST', `/api/jobs/${jobId}/findings/0/issue`, p.token, {
      tracker: 'jira',
    });
    expect(j.body).toMatchObject({
      code: 'tracker_rejected',
      detail: expect.stringContaining('Specify a valid project ID or key'),
    });
    expect(
      (await api<{ issues: unknown[] }>(h, 'GET', `/api/jobs/${jobId}/issues`, p.token)).body
        .issues,
    ).toEqual([]);
    // Outside development (WEBHOOKS_ALLOW_PRIVATE unset) a Jira site on a private address is never called.
    const seenBefore = jira.seen.length;
    for (const siteUrl of [jira.url, jira.url.replace('127.0.0.1', 'localhost')])
      await expect(
        createJiraIssue(
          {
            siteUrl,
            email: 'pat@example.com',
            apiToken: 'jira-good',
            projectKey: 'WEB',
            allowPrivate: false,
            caFile: jira.caFile,
          },
          { title: 'x', severity: null, lines: [] },
        ),
      ).rejects.toMatchObject({
        trackerMessage: 'refused: not a public address',
      });
    expect(jira.seen.length).toBe(seenBefore);
    const badBody = await api<{ errors: Record<string, string[]> }>(
      h,
      'PUT',
      '/api/trackers/github',
      p.token,
      { token: '', repository: 'no-slash' },
    );
    expect(badBody.status).toBe(400);
    expect(Object.keys(badBody.body.errors).sort()).toEqual(['repository', 'token']);
    expect((await api(h, 'DELETE', '/api/trackers/github', p.token)).status).toBe(204);
    expect((await api<TrackersView>(h, 'GET', '/api/trackers', p.token)).body.github).toBeNull();
  });

  it('refuses a Jira site over plain http (400, nothing saved) and never sends the token to one saved before the rule', async () => {
    const { jobId, p } = await acceptedJob();
    const plain = jira.url.replace('https://', 'http://');
    const r = await connectJira(p, plain);
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual({ site_url: [TRACKER_MESSAGES.siteHttps] });
    expect((await api<TrackersView>(h, 'GET', '/api/trackers', p.token)).body.jira).toBeNull();
    // A site saved over http before the rule: refused at sending time, the token stays home.
    expect((await connectJira(p)).status).toBe(200);
    await h.svc.ctx.dbHandle.query(
      `UPDATE jobs.tracker_credentials SET settings = jsonb_set(settings, '{site_url}', to_jsonb($2::text)) WHERE owner_id = $1 AND kind = 'jira'`,
      [p.id, plain],
    );
    const seen = jira.seen.length;
    const sent = await api<Sent>(h, 'POST', `/api/jobs/${jobId}/findings/0/issue`, p.token, {
      tracker: 'jira',
    });
    expect([sent.status, sent.body.code]).toEqual([409, 'tracker_https_required']);
    expect(jira.seen.length).toBe(seen);
  });

  it('sends the whole report as one issue listing every finding, once per tracker, beside the per-finding issues', async () => {
    const { jobId, p } = await acceptedJob({
      key_finding_2_severity: 'blocker',
      key_finding_2_steps: '1. Open /signup\n2. Type a short password',
      key_finding_2_expected: 'The rules before typing',
      key_finding_2_actual: 'The rules only after an error',
    });
    expect((await connectGithub(p)).status).toBe(200);
    expect((await connectJira(p)).status).toBe(200);
    const ghBefore = gh.seen.length;
    const first = await api<Sent>(h, 'POST', `/api/jobs/${jobId}/issue`, p.token, {
      tracker: 'github',
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      finding_index: null,
      tracker: 'github',
      url: expect.stringMatching(/^https:\/\/github\.com\/acme\/site\/issues\/\d+$/),
    });
    const again = await api<Sent>(h, 'POST', `/api/jobs/${jobId}/issue`, p.token, {
      tracker: 'github',
    });
    expect({ status: again.status, url: again.body.url }).toEqual({
      status: 200,
      url: first.body.url,
    });
    expect(gh.seen.length).toBe(ghBefore + 1);
    const sent = gh.seen[ghBefore].body;
    expect(sent.title).toBe('Tester report: Check my signup page');
    expect(sent.labels).toEqual(expect.arrayContaining(['severity: blocker']));
    // Every finding, worst first, with its details.
    const body = String(sent.body);
    expect(body).toContain(
      '1. [blocker] Password rules shown only after an error\nSteps to reproduce:\n1. Open /signup\n2. Type a short password\nExpected: The rules before typing\nActual: The rules only after an error',
    );
    expect(body).toContain('2. Signup button hard to find');
    expect(body).toContain('https://example.com/signup');

    // A finding's own issue is another issue; the list tells them apart.
    const one = await api<Sent>(h, 'POST', `/api/jobs/${jobId}/findings/0/issue`, p.token, {
      tracker: 'github',
    });
    expect(one.status).toBe(201);
    expect(one.body.url).not.toBe(first.body.url);
    const jiraBefore = jira.seen.length;
    const j = await api<Sent>(h, 'POST', `/api/jobs/${jobId}/issue`, p.token, { tracker: 'jira' });
    expect(j.status).toBe(201);
    expect(jira.seen.length).toBe(jiraBefore + 1);
    expect(JSON.stringify(jira.seen[jiraBefore].body.fields)).toContain(
      'Signup button hard to find',
    );
    const listed = (await api<{ issues: Sent[] }>(h, 'GET', `/api/jobs/${jobId}/issues`, p.token))
      .body.issues;
    expect(listed).toEqual(
      expect.arrayContaining([
        { finding_index: null, tracker: 'github', url: first.body.url },
        { finding_index: 0, tracker: 'github', url: one.body.url },
        { finding_index: null, tracker: 'jira', url: j.body.url },
      ]),
    );
    expect(listed).toHaveLength(3);
    // A negative finding index is not the report's issue.
    expect(
      (
        await api<Sent>(h, 'POST', `/api/jobs/${jobId}/findings/-1/issue`, p.token, {
          tracker: 'github',
        })
      ).body.code,
    ).toBe('finding_not_found');
  });

  it("links each finding's moment in the recording in the whole report's issue", () => {
    const report = {
      job: { id: 'j', title: 'Checkout', url: 'https://shop.example.com', requirements: [] },
      tester: { first_name: 'Sam', country: 'CA' },
      device_used: 'Pixel 8',
      browser_used: 'Chrome',
      findings: [
        {
          text: 'Totals slow',
          severity: 'minor',
          steps: null,
          expected: null,
          actual: null,
          at_ms: null,
        },
        {
          text: 'Pay button hidden',
          severity: 'major',
          steps: null,
          expected: null,
          actual: null,
          at_ms: 61_500,
        },
      ],
      general_feedback: null,
      screenshots: [],
      recording: { url: '/api/shared/tok/recording', mime_type: 'video/webm', duration_ms: 90_000 },
      pdf_url: '/api/shared/tok/report.pdf',
      expires_at: '2030-01-01T00:00:00.000Z',
    } as unknown as SharedReportView;
    const d = reportIssueDraft(report, (p) => `https://app.example${p}`);
    expect(d.severity).toBe('major');
    expect(d.lines).toContain(
      '1. [major] Pay button hidden\nRecording at 1:01: https://app.example/api/shared/tok/recording#t=61.5',
    );
    expect(d.lines).toContain('2. [minor] Totals slow');
    expect(d.lines.at(-1)).toBe('Full report: https://app.example/r/tok');
  });
});
