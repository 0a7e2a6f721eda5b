import { AppError, type Caller } from '@htm/service-kit';
import {
  formatMoment,
  sortBySeverity,
  TRACKER_MESSAGES,
  type GithubTrackerBody,
  type JiraTrackerBody,
  type SharedReportView,
  type TrackerIssueView,
  type TrackerKind,
  type TrackersView,
} from '@htm/contracts';
import type { JobsDeps } from '../deps.js';
import {
  deleteTrackerCredential,
  findTrackerCredential,
  findTrackerIssue,
  insertTrackerIssue,
  listTrackerCredentials,
  saveTrackerCredential,
  trackerIssuesOf,
} from '../db/tracker.repository.js';
import { CredentialBox } from '../providers/credential-box.js';
import {
  TrackerCheckFailed,
  TrackerRefusal,
  checkGithubAccess,
  checkJiraAccess,
  createGithubIssue,
  createJiraIssue,
  type IssueDraft,
} from '../providers/trackers.js';
import { readOwnReport, type ReportSource } from './share-report.js';

const box = (deps: Pick<JobsDeps, 'config'>) => CredentialBox.fromConfig(deps.config);
const NAMES: Record<TrackerKind, string> = { github: 'GitHub', jira: 'Jira' };

/**
 * A connection check's finding as the poster's answer: 400 with the field to change (the form
 * shows it there); no answer from the tracker is 502, and nothing is saved either way.
 */
async function checked(kind: TrackerKind, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (err) {
    if (err instanceof TrackerCheckFailed)
      throw AppError.invalid(err.message, { [err.field]: [err.message] }, err.code);
    if (err instanceof TrackerRefusal)
      throw new AppError(
        'bad_gateway',
        `${NAMES[kind]} did not answer as expected (${err.status ?? 'no answer'}), so it is not connected. Please try again later.`,
        { code: 'tracker_unavailable' },
      );
    throw err;
  }
}

/** Connects GitHub once the token is seen to reach the repository's issues. */
export async function saveGithub(
  deps: Pick<JobsDeps, 'db' | 'config'>,
  caller: Caller,
  body: GithubTrackerBody,
): Promise<void> {
  await checked('github', () =>
    checkGithubAccess({
      baseUrl: deps.config.GITHUB_API_URL,
      token: body.token,
      repository: body.repository,
    }),
  );
  await saveTrackerCredential(deps.db, {
    ownerId: caller.id,
    kind: 'github',
    settings: { repository: body.repository },
    secretEnc: box(deps).seal(body.token, `${caller.id}:github`),
  });
}

/** Connects Jira once the e-mail and token sign in and the project is seen. */
export async function saveJira(
  deps: Pick<JobsDeps, 'db' | 'config'>,
  caller: Caller,
  body: JiraTrackerBody,
): Promise<void> {
  await checked('jira', () =>
    checkJiraAccess({
      siteUrl: body.site_url,
      email: body.email,
      apiToken: body.api_token,
      projectKey: body.project_key,
      allowPrivate: deps.config.WEBHOOKS_ALLOW_PRIVATE,
      caFile: deps.config.TRACKER_CA_FILE,
    }),
  );
  await saveTrackerCredential(deps.db, {
    ownerId: caller.id,
    kind: 'jira',
    settings: { site_url: body.site_url, email: body.email, project_key: body.project_key },
    secretEnc: box(deps).seal(body.api_token, `${caller.id}:jira`),
  });
}

/** GET /api/trackers: what is configured; tokens never leave the service. */
export async function trackersOf(
  deps: Pick<JobsDeps, 'db'>,
  caller: Caller,
): Promise<TrackersView> {
  const rows = await listTrackerCredentials(deps.db, caller.id);
  const gh = rows.find((r) => r.kind === 'github');
  const jira = rows.find((r) => r.kind === 'jira');
  return {
    github: gh ? { repository: gh.settings.repository } : null,
    jira: jira
      ? {
          site_url: jira.settings.site_url,
          email: jira.settings.email,
          project_key: jira.settings.project_key,
        }
      : null,
  };
}

export async function removeTracker(
  deps: Pick<JobsDeps, 'db'>,
  caller: Caller,
  kind: TrackerKind,
): Promise<void> {
  await deleteTrackerCredential(deps.db, caller.id, kind);
}

export async function issuesOfJob(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
): Promise<TrackerIssueView[]> {
  const src = await readOwnReport(deps, caller, jobId);
  return (await trackerIssuesOf(deps.db, src.job.id)).map((r) => ({
    finding_index: r.findingIndex === WHOLE_REPORT ? null : r.findingIndex,
    tracker: r.kind as TrackerKind,
    url: r.url,
  }));
}

/** The issue's words: the finding as title, severity, steps, expected/actual, screenshot and recording links, the report. */
export function issueDraft(
  report: SharedReportView,
  index: number,
  abs: (path: string) => string,
): IssueDraft {
  const f = report.findings[index];
  const lines = [
    `Found by a tester on ${report.job.url}${report.tester.country ? ` (${report.tester.country})` : ''}${report.device_used || report.browser_used ? `, ${[report.device_used, report.browser_used].filter(Boolean).join(', ')}` : ''}.`,
    ...(f.severity ? [`Severity: ${f.severity}`] : []),
    ...(f.steps ? [`Steps to reproduce:\n${f.steps}`] : []),
    ...(f.expected ? [`Expected: ${f.expected}`] : []),
    ...(f.actual ? [`Actual: ${f.actual}`] : []),
    ...(report.screenshots[0] ? [`Screenshot: ${abs(report.screenshots[0].url)}`] : []),
    ...(f.at_ms !== null && report.recording
      ? [`Recording at ${formatMoment(f.at_ms)}: ${momentLink(report, f.at_ms, abs)}`]
      : []),
    ...(report.expires_at
      ? [
          `Full report: ${abs(report.pdf_url.replace(/^\/api\/shared\/([^/]+)\/report\.pdf$/, '/r/$1'))}`,
        ]
      : []),
  ];
  return { title: f.text.slice(0, 250), severity: f.severity, lines };
}

/** The whole report's issue is stored as finding index -1 (a finding's index is never negative). */
export const WHOLE_REPORT = -1;

const momentLink = (
  report: SharedReportView,
  atMs: number | null,
  abs: (path: string) => string,
) =>
  atMs !== null && report.recording
    ? `${abs(report.recording.url)}#t=${(atMs / 1000).toFixed(1)}`
    : null;

/** The whole report as one issue: every finding (worst first) with severity, steps, expected/actual and its moment. */
export function reportIssueDraft(
  report: SharedReportView,
  abs: (path: string) => string,
): IssueDraft {
  const findings = sortBySeverity(report.findings);
  const lines = [
    `${findings.length} finding${findings.length === 1 ? '' : 's'} by a tester on ${report.job.url}${report.tester.country ? ` (${report.tester.country})` : ''}${report.device_used || report.browser_used ? `, ${[report.device_used, report.browser_used].filter(Boolean).join(', ')}` : ''}.`,
    ...findings.map((f, i) => {
      const moment = momentLink(report, f.at_ms, abs);
      return [
        `${i + 1}. ${f.severity ? `[${f.severity}] ` : ''}${f.text}`,
        ...(f.steps ? [`Steps to reproduce:\n${f.steps}`] : []),
        ...(f.expected ? [`Expected: ${f.expected}`] : []),
        ...(f.actual ? [`Actual: ${f.actual}`] : []),
        ...(moment && f.at_ms !== null ? [`Recording at ${formatMoment(f.at_ms)}: ${moment}`] : []),
      ].join('\n');
    }),
    ...(report.general_feedback ? [`General feedback: ${report.general_feedback}`] : []),
    ...(report.screenshots.length
      ? [`Screenshots:\n${report.screenshots.map((s) => abs(s.url)).join('\n')}`]
      : []),
    ...(report.expires_at
      ? [
          `Full report: ${abs(report.pdf_url.replace(/^\/api\/shared\/([^/]+)\/report\.pdf$/, '/r/$1'))}`,
        ]
      : []),
  ];
  return {
    title: `Tester report: ${report.job.title}`.slice(0, 250),
    severity: findings[0]?.severity ?? null,
    lines,
  };
}

const inFlight = new Map<string, Promise<{ url: string; created: boolean }>>();

/**
 * "Send to GitHub/Jira" on one finding (index) or the whole report (WHOLE_REPORT): one issue per
 * finding (or report) and tracker. A second click answers the issue made the first time (looked
 * up, and clicks in flight in this process share one call).
 */
export async function sendFinding(
  deps: JobsDeps,
  caller: Caller,
  jobId: string,
  index: number,
  kind: TrackerKind,
  view: (src: ReportSource) => SharedReportView,
  abs: (path: string) => string,
): Promise<{ url: string; created: boolean }> {
  const noSuchFinding = () =>
    AppError.notFound('This report has no such finding.', 'finding_not_found');
  if (index !== WHOLE_REPORT && (!Number.isInteger(index) || index < 0)) throw noSuchFinding();
  const src = await readOwnReport(deps, caller, jobId);
  const key = `${src.job.id}:${index}:${kind}`;
  const running = inFlight.get(key);
  if (running) return running.then((r) => ({ ...r, created: false }));
  const work = (async () => {
    const done = await findTrackerIssue(deps.db, src.job.id, index, kind);
    if (done) return { url: done.url, created: false };
    const report = view(src);
    if (index === WHOLE_REPORT) {
      if (report.findings.length === 0)
        throw AppError.conflict('This report has no findings to send yet.', 'no_findings');
    } else if (index >= report.findings.length) throw noSuchFinding();
    const cred = await findTrackerCredential(deps.db, caller.id, kind);
    if (!cred)
      throw AppError.conflict(
        `Connect ${NAMES[kind]} first (Settings and integrations, Issue trackers).`,
        'tracker_not_connected',
      );
    const secret = box(deps).open(cred.secretEnc, `${caller.id}:${kind}`);
    const draft =
      index === WHOLE_REPORT ? reportIssueDraft(report, abs) : issueDraft(report, index, abs);
    let created: { url: string };
    try {
      created =
        kind === 'github'
          ? await createGithubIssue(
              {
                baseUrl: deps.config.GITHUB_API_URL,
                token: secret,
                repository: cred.settings.repository,
              },
              draft,
            )
          : await createJiraIssue(
              {
                siteUrl: cred.settings.site_url,
                email: cred.settings.email,
                apiToken: secret,
                projectKey: cred.settings.project_key,
                allowPrivate: deps.config.WEBHOOKS_ALLOW_PRIVATE,
                caFile: deps.config.TRACKER_CA_FILE,
              },
              draft,
            );
    } catch (err) {
      if (err instanceof TrackerRefusal) throw refusal(kind, err, cred.settings);
      throw err;
    }
    await insertTrackerIssue(deps.db, {
      jobId: src.job.id,
      findingIndex: index,
      kind,
      url: created.url,
    });
    return { url: created.url, created: true };
  })();
  inFlight.set(key, work);
  try {
    return await work;
  } finally {
    inFlight.delete(key);
  }
}

/** A tracker's 401/404/422 as a sentence the poster can act on (409; anything else 502). */
function refusal(
  kind: TrackerKind,
  err: TrackerRefusal,
  settings: Record<string, string>,
): AppError {
  const where =
    kind === 'github' ? settings.repository : `${settings.project_key} on ${settings.site_url}`;
  const name = NAMES[kind];
  if (err.status === 401 || err.status === 403)
    return AppError.conflict(
      `${name} refused the ${kind === 'github' ? 'token' : 'e-mail and API token'}: check ${kind === 'github' ? 'that it is valid and may write issues in' : 'them and your access to'} ${where}, then connect ${name} again.`,
      'tracker_unauthorized',
    );
  if (err.status === 426)
    return AppError.conflict(
      `${TRACKER_MESSAGES.siteHttps}: connect ${name} again with its https:// address.`,
      'tracker_https_required',
    );
  if (err.status === 404)
    return AppError.conflict(
      `${name} could not find ${where} (or the ${kind === 'github' ? 'token' : 'account'} cannot see it): check the ${kind === 'github' ? 'repository' : 'site and project key'}.`,
      'tracker_not_found',
    );
  if (err.status === 422 || err.status === 400)
    return AppError.conflict(
      `${name} refused the issue: ${err.trackerMessage}`,
      'tracker_rejected',
    );
  return new AppError(
    'bad_gateway',
    `${name} did not answer as expected (${err.status ?? 'no answer'}). Please try again later.`,
    { code: 'tracker_unavailable' },
  );
}
