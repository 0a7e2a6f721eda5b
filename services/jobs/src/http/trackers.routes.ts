import { Router, type Request } from 'express';
import {
  githubTrackerBodySchema,
  jiraTrackerBodySchema,
  sendFindingBodySchema,
  TRACKER_KINDS,
  type TrackerKind,
} from '@htm/contracts';
import { AppError, callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import {
  issuesOfJob,
  removeTracker,
  saveGithub,
  saveJira,
  sendFinding,
  trackersOf,
  WHOLE_REPORT,
} from '../domain/trackers.js';
import { ownUrls, sharedUrls, toReportView, type ReportUrls } from './report-view.js';

const param = (req: Request, name: string) => String(req.params[name] ?? '');

function originOf(req: Request): string {
  const proto = String(req.headers['x-forwarded-proto'] ?? req.protocol)
    .split(',')[0]
    .trim();
  const host = String(req.headers['x-forwarded-host'] ?? req.headers.host ?? 'localhost')
    .split(',')[0]
    .trim();
  return `${proto}://${host}`;
}

/** The poster's issue trackers (GitHub, Jira) and "Send to ..." on each finding. */
export function trackersRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  const who = [deps.auth.authenticate, deps.auth.requireRole('poster', 'admin')];
  const kindOf = (req: Request): TrackerKind => {
    const k = param(req, 'kind');
    if (!(TRACKER_KINDS as readonly string[]).includes(k))
      throw AppError.notFound('No such issue tracker.', 'tracker_unknown');
    return k as TrackerKind;
  };

  r.get('/api/trackers', ...who, async (req, res) => {
    res.json(await trackersOf(deps, callerOf(req)));
  });
  r.put('/api/trackers/{kind}', ...who, async (req, res) => {
    const kind = kindOf(req);
    if (kind === 'github')
      await saveGithub(deps, callerOf(req), parseOrThrow(githubTrackerBodySchema, req.body ?? {}));
    else await saveJira(deps, callerOf(req), parseOrThrow(jiraTrackerBodySchema, req.body ?? {}));
    res.json(await trackersOf(deps, callerOf(req)));
  });
  r.delete('/api/trackers/{kind}', ...who, async (req, res) => {
    await removeTracker(deps, callerOf(req), kindOf(req));
    res.status(204).end();
  });
  r.get('/api/jobs/{id}/issues', ...who, async (req, res) => {
    res.json({ issues: await issuesOfJob(deps, callerOf(req), param(req, 'id')) });
  });
  const send = async (req: Request, index: number) => {
    const body = parseOrThrow(sendFindingBodySchema, req.body ?? {});
    const origin = originOf(req);
    const out = await sendFinding(
      deps,
      callerOf(req),
      param(req, 'id'),
      index,
      body.tracker,
      (src) => {
        const urls: ReportUrls = src.share ? sharedUrls(src.share.token) : ownUrls(deps);
        // Findings in the tester's order: the index is the finding's place in the submission.
        return toReportView(src, deps.links, urls, { sorted: false });
      },
      (p) => new URL(p, origin).href,
    );
    return {
      status: out.created ? 201 : 200,
      view: {
        finding_index: index === WHOLE_REPORT ? null : index,
        tracker: body.tracker,
        url: out.url,
      },
    };
  };
  r.post('/api/jobs/{id}/findings/{index}/issue', ...who, async (req, res) => {
    const index = Number(param(req, 'index'));
    // A negative index would name the whole report's issue: not a finding.
    const out = await send(req, Number.isInteger(index) && index >= 0 ? index : Number.NaN);
    res.status(out.status).json(out.view);
  });
  // The whole report as one issue (every finding listed), once per tracker.
  r.post('/api/jobs/{id}/issue', ...who, async (req, res) => {
    const out = await send(req, WHOLE_REPORT);
    res.status(out.status).json(out.view);
  });
  return r.router;
}
