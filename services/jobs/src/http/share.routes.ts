import { Router, type Request, type Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { shareLinkBodySchema } from '@htm/contracts';
import { AppError, callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import type { FileRow } from '../db/schema.js';
import {
  authorizeSharedFile,
  authorizeSharedRecording,
  createShareLink,
  readOwnReport,
  readSharedReport,
  revokeShareLink,
  type ReportSource,
} from '../domain/share-report.js';
import { renderReportPdf, type ReportImage } from '../providers/report-pdf.js';
import { ownUrls, sharedUrls, toReportView, type ReportUrls } from './report-view.js';
import { linkGonePage, sharePage } from './share-page.js';
import { sendRecording } from './recordings.routes.js';

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

async function sendPdf(
  deps: JobsDeps,
  req: Request,
  res: Response,
  src: ReportSource,
  urls: ReportUrls,
): Promise<void> {
  const view = toReportView(src, deps.links, urls);
  const origin = originOf(req);
  const images = (await Promise.all(src.images.map((f) => readImage(deps, f)))).filter(
    (i): i is ReportImage => !!i,
  );
  const pdf = await renderReportPdf(view, images, {
    recordingAt: (ms) =>
      view.recording
        ? `${new URL(view.recording.url, origin).href}#t=${(ms / 1000).toFixed(1)}`
        : null,
  });
  res.setHeader('Content-Type', 'application/pdf');
  res.setHeader(
    'Content-Disposition',
    `attachment; filename="report-${src.job.id.slice(0, 8)}.pdf"`,
  );
  res.setHeader('Content-Length', String(pdf.length));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(pdf);
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
      const src = await readOwnReport(deps, callerOf(req), param(req, 'id'));
      // Files through the live share link when there is one (the links then work for whoever gets the PDF).
      const urls: ReportUrls = src.share ? sharedUrls(src.share.token) : ownUrls(deps);
      await sendPdf(deps, req, res, src, urls);
    },
  );

  r.get('/api/shared/{token}', async (req, res) => {
    sharedHeaders(res);
    const token = param(req, 'token');
    res.json(toReportView(await readSharedReport(deps, token), deps.links, sharedUrls(token)));
  });

  r.get('/api/shared/{token}/report.pdf', async (req, res) => {
    sharedHeaders(res);
    const token = param(req, 'token');
    await sendPdf(deps, req, res, await readSharedReport(deps, token), sharedUrls(token));
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

  r.get('/r/{token}', async (req, res) => {
    sharedHeaders(res);
    const token = param(req, 'token');
    let html: string;
    try {
      html = sharePage(
        toReportView(await readSharedReport(deps, token), deps.links, sharedUrls(token)),
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
