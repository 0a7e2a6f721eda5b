import { Octokit } from '@octokit/rest';
import net from 'node:net';
import { Version3Client } from 'jira.js';
import { isPrivateAddress, publicOnlyAgents } from './webhook-sender.js';

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

/** What a tracker answered, for the poster: 401 / 404 / 422 (400 on Jira) or anything else. */
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

/** POST /repos/{owner}/{repo}/issues with the official client; `baseUrl` for GitHub Enterprise and the tests' stand-in. */
export async function createGithubIssue(
  opts: { baseUrl: string; token: string; repository: string },
  draft: IssueDraft,
): Promise<CreatedIssue> {
  const [owner, repo] = opts.repository.split('/');
  const quiet = () => undefined;
  const octokit = new Octokit({
    auth: opts.token,
    baseUrl: opts.baseUrl,
    userAgent: 'HumanTest',
    request: { timeout: 10_000 },
    log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
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

/** POST /rest/api/3/issue (a Bug, priority from the severity) with jira.js; the site URL is the poster's. */
export async function createJiraIssue(
  opts: {
    siteUrl: string;
    email: string;
    apiToken: string;
    projectKey: string;
    allowPrivate: boolean;
  },
  draft: IssueDraft,
): Promise<CreatedIssue> {
  // The site is the poster's to name: outside development it must be a public address (SSRF), no redirects.
  const host = new URL(opts.siteUrl).hostname.replace(/^\[|\]$/g, '');
  if (!opts.allowPrivate && net.isIP(host) && isPrivateAddress(host))
    throw new TrackerRefusal(404, `${host} is a private address`);
  const agents = opts.allowPrivate ? {} : publicOnlyAgents();
  const client = new Version3Client({
    host: opts.siteUrl,
    authentication: { basic: { email: opts.email, apiToken: opts.apiToken } },
    baseRequestConfig: { timeout: 10_000, maxRedirects: 0, ...agents },
  });
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
