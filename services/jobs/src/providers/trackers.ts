import { Octokit } from '@octokit/rest';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { Version3Client } from 'jira.js';
import { isPrivateAddress, publicOnlyAgents, REFUSED_ADDRESS } from './webhook-sender.js';

/** One finding as an issue: the same words for GitHub (Markdown) and Jira (paragraphs). */
export interface IssueDraft {
  title: string;
  severity: string | null;
  /** Paragraphs of the body, in order; links as absolute URLs in the text. */
  lines: string[];
}

export interface CreatedIssue {
  url: string;
  key: string;
}

/** What a tracker answered, for the poster: 401 / 404 / 422 (400 on Jira) or anything else; 426: not called, the site is not https. */
export class TrackerRefusal extends Error {
  constructor(
    readonly status: number | null,
    readonly trackerMessage: string,
  ) {
    super(trackerMessage);
  }
}

interface ErrorBody {
  message?: string;
  errorMessages?: string[];
  errors?: Record<string, string>;
}

function statusOf(err: unknown): { status: number | null; message: string } {
  const e = err as {
    status?: number;
    message?: string;
    response?: (ErrorBody & { status?: number; data?: ErrorBody }) | string;
  };
  const response = typeof e.response === 'object' ? e.response : undefined;
  const status =
    typeof e.status === 'number'
      ? e.status
      : typeof response?.status === 'number'
        ? response.status
        : null;
  const data: ErrorBody | undefined = response?.data ?? response;
  const detail =
    data?.message ??
    data?.errorMessages?.[0] ??
    (data?.errors ? Object.values(data.errors)[0] : undefined) ??
    e.message ??
    'no answer';
  return { status, message: String(detail) };
}

const GITHUB_LABEL: Record<string, string> = {
  blocker: 'severity: blocker',
  major: 'severity: major',
  minor: 'severity: minor',
  cosmetic: 'severity: cosmetic',
};
const JIRA_PRIORITY: Record<string, string> = {
  blocker: 'Highest',
  major: 'High',
  minor: 'Medium',
  cosmetic: 'Low',
};

function githubClient(opts: { baseUrl: string; token: string }): Octokit {
  const quiet = () => undefined;
  return new Octokit({
    auth: opts.token,
    baseUrl: opts.baseUrl,
    userAgent: 'HumanTest',
    request: { timeout: 10_000 },
    log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
}

/** What a connection check found wrong: which field the poster must change, and why. */
export class TrackerCheckFailed extends Error {
  constructor(
    readonly field: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Connecting GitHub: GET /repos/{owner}/{repo} with the token (the official client). A refused
 * token (401), a repository the token cannot see (404), issues switched off or a token that may
 * only read become a TrackerCheckFailed naming the field; no answer is a TrackerRefusal.
 */
export async function checkGithubAccess(opts: {
  baseUrl: string;
  token: string;
  repository: string;
}): Promise<void> {
  const [owner, repo] = opts.repository.split('/');
  let data: { has_issues?: boolean; permissions?: { push?: boolean; triage?: boolean } };
  try {
    ({ data } = await githubClient(opts).rest.repos.get({ owner, repo }));
  } catch (err) {
    const s = statusOf(err);
    if (s.status === 401)
      throw new TrackerCheckFailed(
        'token',
        'tracker_unauthorized',
        'GitHub refused this token: check that you copied all of it and that it has not expired.',
      );
    if (s.status === 403 || s.status === 404)
      throw new TrackerCheckFailed(
        'repository',
        'tracker_not_found',
        `GitHub has no repository ${opts.repository} that this token can see: check the name, and give the token access to it.`,
      );
    throw new TrackerRefusal(s.status, s.message);
  }
  if (data.has_issues === false)
    throw new TrackerCheckFailed(
      'repository',
      'tracker_issues_disabled',
      `Issues are switched off in ${opts.repository}: turn them on in the repository's settings.`,
    );
  // A fine-grained token that may only read answers permissions without push or triage.
  if (data.permissions && !data.permissions.push && !data.permissions.triage)
    throw new TrackerCheckFailed(
      'token',
      'tracker_read_only',
      `This token may only read ${opts.repository}: give it "Issues: read and write".`,
    );
}

/** POST /repos/{owner}/{repo}/issues with the official client; `baseUrl` for GitHub Enterprise and the tests' stand-in. */
export async function createGithubIssue(
  opts: { baseUrl: string; token: string; repository: string },
  draft: IssueDraft,
): Promise<CreatedIssue> {
  const [owner, repo] = opts.repository.split('/');
  const octokit = githubClient(opts);
  try {
    const { data } = await octokit.rest.issues.create({
      owner,
      repo,
      title: draft.title,
      body: draft.lines.join('\n\n'),
      labels: draft.severity && GITHUB_LABEL[draft.severity] ? [GITHUB_LABEL[draft.severity]] : [],
    });
    return { url: data.html_url, key: `#${data.number}` };
  } catch (err) {
    const s = statusOf(err);
    throw new TrackerRefusal(s.status, s.message);
  }
}

const caFiles = new Map<string, string>();
/** TRACKER_CA_FILE's PEM, read once. */
function extraCa(file: string): string {
  let pem = caFiles.get(file);
  if (pem === undefined) caFiles.set(file, (pem = readFileSync(file, 'utf8')));
  return pem;
}

interface JiraOptions {
  siteUrl: string;
  email: string;
  apiToken: string;
  projectKey: string;
  allowPrivate: boolean;
  /** A PEM file of certificate authorities trusted besides the public ones (TRACKER_CA_FILE). */
  caFile?: string;
}

function jiraClient(opts: JiraOptions): Version3Client {
  // The site is the poster's to name: outside development it must be a public address (SSRF), no redirects.
  const site = new URL(opts.siteUrl);
  // The API token goes with the call: https only (a site saved over http before this rule is refused here).
  if (site.protocol !== 'https:') throw new TrackerRefusal(426, 'the site must use https://');
  const host = site.hostname.replace(/^\[|\]$/g, '');
  if (!opts.allowPrivate && net.isIP(host) && isPrivateAddress(host))
    throw new TrackerRefusal(404, REFUSED_ADDRESS);
  const ca = opts.caFile ? [...tls.rootCertificates, extraCa(opts.caFile)] : undefined;
  const agents = opts.allowPrivate
    ? ca
      ? { httpsAgent: new https.Agent({ ca }) }
      : {}
    : publicOnlyAgents(ca);
  return new Version3Client({
    host: opts.siteUrl,
    authentication: { basic: { email: opts.email, apiToken: opts.apiToken } },
    baseRequestConfig: { timeout: 10_000, maxRedirects: 0, ...agents },
  });
}

/**
 * Connecting Jira: GET /rest/api/3/myself (the e-mail and API token) then
 * GET /rest/api/3/project/{key} (the project, as this account sees it) with jira.js. A refused
 * login (401/403) or a project the account cannot see (404) become a TrackerCheckFailed naming
 * the field; a site that does not answer like Jira is one on site_url.
 */
export async function checkJiraAccess(opts: JiraOptions): Promise<void> {
  let client: Version3Client;
  try {
    client = jiraClient(opts);
  } catch (err) {
    if (err instanceof TrackerRefusal)
      throw new TrackerCheckFailed(
        'site_url',
        'tracker_not_found',
        `This Jira site address cannot be used (${err.trackerMessage}): use your Jira site's https:// address.`,
      );
    throw err;
  }
  const site = opts.siteUrl.replace(/\/+$/, '');
  try {
    await client.myself.getCurrentUser();
  } catch (err) {
    const s = statusOf(err);
    if (s.status === 401 || s.status === 403)
      throw new TrackerCheckFailed(
        'api_token',
        'tracker_unauthorized',
        `Jira at ${site} refused this e-mail and API token: check both (the token is made under your Atlassian account's security settings).`,
      );
    throw new TrackerCheckFailed(
      'site_url',
      'tracker_unreachable',
      `${site} did not answer as a Jira site (${s.status ?? 'no answer'}): check the address.`,
    );
  }
  try {
    await client.projects.getProject({ projectIdOrKey: opts.projectKey });
  } catch (err) {
    const s = statusOf(err);
    if (s.status === 404 || s.status === 403 || s.status === 401)
      throw new TrackerCheckFailed(
        'project_key',
        'tracker_not_found',
        `Jira at ${site} has no project ${opts.projectKey} that this account can see: check the key (it is the prefix of the project's issues, e.g. WEB in WEB-12).`,
      );
    throw new TrackerRefusal(s.status, s.message);
  }
}

/** POST /rest/api/3/issue (a Bug, priority from the severity) with jira.js; the site URL is the poster's. */
export async function createJiraIssue(opts: JiraOptions, draft: IssueDraft): Promise<CreatedIssue> {
  const client = jiraClient(opts);
  try {
    const created = await client.issues.createIssue({
      fields: {
        project: { key: opts.projectKey },
        issuetype: { name: 'Bug' },
        summary: draft.title,
        ...(draft.severity && JIRA_PRIORITY[draft.severity]
          ? { priority: { name: JIRA_PRIORITY[draft.severity] } }
          : {}),
        description: {
          type: 'doc',
          version: 1,
          content: draft.lines.map((line) => ({
            type: 'paragraph',
            content: [{ type: 'text', text: line }],
          })),
        },
      },
    });
    return { url: `${opts.siteUrl.replace(/\/+$/, '')}/browse/${created.key}`, key: created.key };
  } catch (err) {
    const s = statusOf(err);
    throw new TrackerRefusal(s.status, s.message);
  }
}
