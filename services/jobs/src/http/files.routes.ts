import { catalogueRoutes } from '@htm/service-kit';
import { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import type { JobsDeps } from '../deps.js';
import { authorizeFile } from '../domain/review/read-submission.js';

export function filesRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  // Bearer token (optional) or ?sig= signed link.
  r.get('/api/files/{id}', deps.auth.optional, async (req, res) => {
    const sig = typeof req.query.sig === 'string' ? req.query.sig : undefined;
    const file = await authorizeFile(deps, String(req.params.id), { sig, caller: req.caller });
    const { stream, size } = await deps.storage.get(file.storageKey);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'private, max-age=300');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'",
    );
    if (size !== undefined) res.setHeader('Content-Length', String(size));
    const fallback = `${file.kind === 'preview' ? 'preview' : 'file'}-${file.id.slice(0, 8)}.${file.ext}`;
    // Stored names are sanitised at upload (letters, digits, space . _ -): quoting is safe; other
    // than ASCII goes in filename* (RFC 6266), with the generated name as the ASCII fallback.
    const name = file.originalName ?? fallback;
    const ascii = /^[\x20-\x7e]+$/.test(name) ? name : fallback;
    const disposition = req.query.download === '1' ? 'attachment' : 'inline';
    res.setHeader(
      'Content-Disposition',
      `${disposition}; filename="${ascii}"${ascii === name ? '' : `; filename*=UTF-8''${encodeURIComponent(name)}`}`,
    );
    await pipeline(stream, res);
  });
  return r.router;
}
