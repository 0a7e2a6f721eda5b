import { Router, type Request, type Response } from 'express';
import { pipeline } from 'node:stream/promises';
import {
  shareLinkBodySchema,
  type PackTesterReportView,
  type SharedReportView,
} from '@htm/contracts';
import { AppError, callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import type { FileRow } from '../db/schema.js';
import {
  authorizeSharedClip,
  authorizeSharedFile,
  authorizeSharedRecording,
  createPackShareLink,
  createShareLink,
  readOwnPackReport,
  readOwnReport,
  readSharedReport,
  revokePackShareLink,
  revokeShareLink,
  type PackReportSource,
  type ReportSource,
  type SharedSource,
} from '../domain/share-report.js';
import type { PdfReport, ReportImage } from '../providers/report-pdf.js';
import {
  ownUrls,
  packSharedUrls,
  sharedUrls,
  toPackView,
  toReportView,
  type ReportUrls,
} from './report-view.js';
import { linkGonePage, packSharePage, sharePage, type SharePageOptions } from './share-page.js';
import { sendRecording } from './recordings.routes.js';
import { summaryStills } from '../domain/report-stills.js';

const param = (req: Request, name: string) => String(req.params[name] ?? '');

/** Shared answers are for the reader only: never indexed, never cached along the way, no referrer. */
function sharedHeaders(res: Response): void {
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'private, no-store');
}

/** The origin the reader used (the gateway forwards it), for the PDF's absolute links. */
function originOf(req: Request): string {
  const proto = String(req.headers['x-forwarded-proto'] ?? req.protocol)
    .split(',')[0]
    .trim();
  const host = String(req.headers['x-forwarded-host'] ?? req.headers.host ?? 'localhost')
    .split(',')[0]
    .trim();
  return `${proto}://${host}`;
}

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

async function readImage(deps: JobsDeps, f: FileRow): Promise<ReportImage | null> {
  try {
    const { stream } = await deps.storage.get(f.storageKey);
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of stream) {
      n += (c as Buffer).length;
      if (n > MAX_IMAGE_BYTES) {
        stream.destroy();
        return null;
      }
      chunks.push(c as Buffer);
    }
    return {
      bytes: Buffer.concat(chunks),
      contentType: f.contentType,
      name: f.originalName ?? null,
    };
  } catch (err) {
    deps.logger.warn(
      { err: (err as Error).message, fileId: f.id },
      'report image could not be read; left out of the PDF',
    );
    return null;
  }
}

/** One report of the PDF: its view, its screenshots, and where its recording plays at a moment. */
async function pdfReport(
  deps: JobsDeps,
  src: ReportSource,
  view: SharedReportView | PackTesterReportView,
  origin: string,
): Promise<PdfReport> {
  const images = (await Promise.all(src.images.map((f) => readImage(deps, f)))).filter(
    (i): i is ReportImage => !!i,
  );
  return {
    view,
    images,
    recordingAt: (ms) =>
      view.recording
        ? `${new URL(view.recording.url, origin).href}#t=${(ms / 1000).toFixed(1)}`
        : null,
  };
}

/** The PDF of a job's report or of a pack's, page 1 the summary with a still of each top problem. */
async function sendPdf(
  deps: JobsDeps,
  req: Request,
  res: Response,
  shared: SharedSource,
  urls: ReportUrls,
): Promise<void> {
  const origin = originOf(req);
  // pdfkit and its fonts load with the first PDF, not with the service.
  const { renderReportPdf } = await import('../providers/report-pdf.js');
  let pdf: Buffer;
  let name: string;
  if (shared.scope === 'job') {
    const view = toReportView(shared.src, deps.links, urls);
    pdf = await renderReportPdf({
      title: view.job.title,
      url: view.job.url,
      summary: view.summary ?? null,
      stills: await summaryStills(deps, view.summary ?? null),
      reports: [await pdfReport(deps, shared.src, view, origin)],
      healthCheck: view.health_check,
      origin,
    });
    name = `report-${shared.src.job.id.slice(0, 8)}.pdf`;
  } else {
    const view = toPackView(shared.src, deps.links, urls);
    pdf = await renderReportPdf({
      title: view.job.title,
      url: view.job.url,
      pack: { size: view.pack.size, reported: view.pack.reported },
      summary: view.summary,
      stills: await summaryStills(deps, view.summary),
      reports: await Promise.all(
        shared.src.reports.map((r, i) => pdfReport(deps, r, view.reports[i], origin)),
      ),
      healthCheck: view.health_check,
      origin,
    });
    name = `pack-report-${shared.src.pack.id.slice(0, 8)}.pdf`;
  }
  res.setHeader('Content-Type', 'application/pdf');
  res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
  res.setHeader('Content-Length', String(pdf.length));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(pdf);
}

/** The shared JSON of a job's or a pack's link. */
function sharedView(deps: JobsDeps, shared: SharedSource, token: string) {
  return shared.scope === 'job'
    ? toReportView(shared.src, deps.links, sharedUrls(token))
    : toPackView(shared.src, deps.links, packSharedUrls(token));
}

/** Own files (signed links) without a live share link; through the link when there is one (the PDF's links then work for whoever gets it). */
const pdfUrls = (deps: JobsDeps, src: ReportSource | PackReportSource, pack: boolean) =>
  src.share ? (pack ? packSharedUrls : sharedUrls)(src.share.token) : ownUrls(deps);

/**
 * What the page's address asks for: ?t=<seconds> (a finding's "Watch at": the recording starts
 * there), ?clip=<n> (the reel opens at that clip), ?moment=<submission id>:<finding index> (a
 * problem's proof: that moment plays in the reel).
 */
function pageOptions(req: Request): SharePageOptions {
  const t = Number(String(req.query.t ?? ''));
  const clip = Number(String(req.query.clip ?? ''));
  const moment = /^([0-9a-f-]{36}):(\d{1,3})$/i.exec(String(req.query.moment ?? ''));
  return {
    startAtMs: req.query.t !== undefined && Number.isFinite(t) ? Math.round(t * 1000) : null,
    clip: Number.isInteger(clip) && clip >= 0 ? clip : null,
    moment: moment ? { submissionId: moment[1], findingIndex: Number(moment[2]) } : null,
  };
}

export function shareRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  const { authenticate, requireRole } = deps.auth;

  r.post('/api/jobs/{id}/share', authenticate, requireRole('poster', 'admin'), async (req, res) => {
    const body = parseOrThrow(shareLinkBodySchema, req.body ?? {});
    const link = await createShareLink(deps, callerOf(req), param(req, 'id'), body.expires_in_days);
    res.status(201).json({
      url: `/r/${link.token}`,
      token: link.token,
      expires_at: link.expiresAt.toISOString(),
    });
  });

  r.delete(
    '/api/jobs/{id}/share',
    authenticate,
    requireRole('poster', 'admin'),
    async (req, res) => {
      await revokeShareLink(deps, callerOf(req), param(req, 'id'));
      res.status(204).end();
    },
  );

  r.get(
    '/api/jobs/{id}/report.pdf',
    authenticate,
    requireRole('poster', 'admin'),
    async (req, res) => {
      const src = await readOwnReport(deps, callerOf(req), param(req, 'id'), { summary: true });
      await sendPdf(deps, req, res, { scope: 'job', src }, pdfUrls(deps, src, false));
    },
  );

  // A pack's one link and one PDF (issue #51): what the testers agree on, then each report.
  r.post(
    '/api/packs/{id}/share',
    authenticate,
    requireRole('poster', 'admin'),
    async (req, res) => {
      const body = parseOrThrow(shareLinkBodySchema, req.body ?? {});
      const link = await createPackShareLink(
        deps,
        callerOf(req),
        param(req, 'id'),
        body.expires_in_days,
      );
      res.status(201).json({
        url: `/r/${link.token}`,
        token: link.token,
        expires_at: link.expiresAt.toISOString(),
      });
    },
  );

  r.delete(
    '/api/packs/{id}/share',
    authenticate,
    requireRole('poster', 'admin'),
    async (req, res) => {
      await revokePackShareLink(deps, callerOf(req), param(req, 'id'));
      res.status(204).end();
    },
  );

  r.get(
    '/api/packs/{id}/report.pdf',
    authenticate,
    requireRole('poster', 'admin'),
    async (req, res) => {
      const src = await readOwnPackReport(deps, callerOf(req), param(req, 'id'));
      await sendPdf(deps, req, res, { scope: 'pack', src }, pdfUrls(deps, src, true));
    },
  );

  r.get('/api/shared/{token}', async (req, res) => {
    sharedHeaders(res);
    const token = param(req, 'token');
    res.json(sharedView(deps, await readSharedReport(deps, token), token));
  });

  r.get('/api/shared/{token}/report.pdf', async (req, res) => {
    sharedHeaders(res);
    const token = param(req, 'token');
    const shared = await readSharedReport(deps, token);
    await sendPdf(
      deps,
      req,
      res,
      shared,
      shared.scope === 'job' ? sharedUrls(token) : packSharedUrls(token),
    );
  });

  r.get('/api/shared/{token}/files/{fileId}', async (req, res) => {
    sharedHeaders(res);
    const file = await authorizeSharedFile(deps, param(req, 'token'), param(req, 'fileId'));
    const { stream, size } = await deps.storage.get(file.storageKey);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'",
    );
    res.setHeader(
      'Content-Disposition',
      `inline; filename="file-${file.id.slice(0, 8)}.${file.ext}"`,
    );
    if (size !== undefined) res.setHeader('Content-Length', String(size));
    await pipeline(stream, res);
  });

  // The shared job's screen recording through the token (a <video src> sends no bearer header); Range answers 206.
  r.get('/api/shared/{token}/recording', async (req, res) => {
    sharedHeaders(res);
    await sendRecording(deps, req, res, await authorizeSharedRecording(deps, param(req, 'token')));
  });

  // Any recording the link shows (a pack's testers', the reel's clips), by id; Range answers 206.
  r.get('/api/shared/{token}/recordings/{recordingId}', async (req, res) => {
    sharedHeaders(res);
    const rec = await authorizeSharedClip(deps, param(req, 'token'), param(req, 'recordingId'));
    await sendRecording(deps, req, res, rec);
  });

  r.get('/r/{token}', async (req, res) => {
    sharedHeaders(res);
    const token = param(req, 'token');
    let html: string;
    try {
      const shared = await readSharedReport(deps, token);
      html =
        shared.scope === 'job'
          ? sharePage(toReportView(shared.src, deps.links, sharedUrls(token)), pageOptions(req))
          : packSharePage(
              toPackView(shared.src, deps.links, packSharedUrls(token)),
              pageOptions(req),
            );
    } catch (err) {
      // A browser gets the page saying so; anything else (Accept: */*, JSON) the JSON error.
      if (
        err instanceof AppError &&
        err.code === 'link_gone' &&
        req.accepts(['json', 'html']) === 'html'
      ) {
        res.status(404).type('html').send(linkGonePage());
        return;
      }
      throw err;
    }
    res.type('html').send(html);
  });

  return r.router;
}
