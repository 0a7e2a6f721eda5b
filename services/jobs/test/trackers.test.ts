import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { listen, type RunningServer } from '@htm/service-kit';
import type { SharedReportView, TrackersView } from '@htm/contracts';
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
  const seen: Seen[] = [];
  const app = express();
  app.use(express.json());
  let n = 0;
  app.post('/repos/:owner/:repo/issues', (req, res) => {
    seen.push({ path: req.path, auth: req.headers.authorization, body: req.body });
    if (req.headers.authorization !== 'token ghp_good')
      return void res
        .status(401)
        .json({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    const repo = `${req.params.owner}/${req.params.repo}`;
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
  return { url: server.url, seen, close: () => server.close() };
}
async function jiraStandIn() {
  const seen: Seen[] = [];
  const app = express();
  app.use(express.json());
  let n = 0;
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
  const server: RunningServer = await listen(app, 0);
  return { url: server.url, seen, close: () => server.close() };
}

let h: Harness;
let gh: Awaited<ReturnType<typeof githubStandIn>>;
let jira: Awaited<ReturnType<typeof jiraStandIn>>;
beforeAll(async () => {
  gh = await githubStandIn();
  jira = await jiraStandIn();
  h = await startHarness('trackers', { GITHUB_API_URL: gh.url, WEBHOOKS_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => {
  await h?.close();
  await gh?.close();
  await jira?.close();
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
    expect(
      (
        await api(h, 'PUT', '/api/trackers/jira', p.token, {
          site_url: jira.url,
          email: 'pat@example.com',
          api_token: 'jira-good',
          project_key: 'WEB',
        })
      ).status,
    ).toBe(200);
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

  it('turns 401, 404 and 422 into sentences the poster can act on, and makes nothing', async () => {
    const { jobId, p } = await acceptedJob();
    const send = () =>
      api<Sent>(h, 'POST', `/api/jobs/${jobId}/findings/0/issue`, p.token, { tracker: 'github' });
    expect((await send()).body.code).toBe('tracker_not_connected');
    await api(h, 'PUT', '/api/trackers/github', p.token, {
      token: 'ghp_bad',
      repository: 'acme/site',
    });
    const bad = await send();
    expect(bad.status).toBe(409);
    expect(bad.body).toMatchObject({
      code: 'tracker_unauthorized',
      detail: expect.stringContaining('GitHub refused the token'),
    });
    await api(h, 'PUT', '/api/trackers/github', p.token, {
      token: 'ghp_good',
      repository: 'acme/missing',
    });
    expect((await send()).body).toMatchObject({
      code: 'tracker_not_found',
      detail: expect.stringContaining('could not find acme/missing'),
    });
    await api(h, 'PUT', '/api/trackers/github', p.token, {
      token: 'ghp_good',
      repository: 'acme/strict',
    });
    expect((await send()).body).toMatchObject({
      code: 'tracker_rejected',
      detail: 'GitHub refused the issue: Validation Failed',
    });
    await api(h, 'PUT', '/api/trackers/jira', p.token, {
      site_url: jira.url,
      email: 'pat@example.com',
      api_token: 'jira-good',
      project_key: 'NOPE',
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
          },
          { title: 'x', severity: null, lines: [] },
        ),
      ).rejects.toMatchObject({
        trackerMessage: expect.stringContaining('private address'),
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

  it('sends the whole report as one issue listing every finding, once per tracker, beside the per-finding issues', async () => {
    const { jobId, p } = await acceptedJob({
      key_finding_2_severity: 'blocker',
      key_finding_2_steps: '1. Open /signup\n2. Type a short password',
      key_finding_2_expected: 'The rules before typing',
      key_finding_2_actual: 'The rules only after an error',
    });
    expect(
      (
        await api(h, 'PUT', '/api/trackers/github', p.token, {
          token: 'ghp_good',
          repository: 'acme/site',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api(h, 'PUT', '/api/trackers/jira', p.token, {
          site_url: jira.url,
          email: 'pat@example.com',
          api_token: 'jira-good',
          project_key: 'WEB',
        })
      ).status,
    ).toBe(200);
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
