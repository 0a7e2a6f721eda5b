import express, { type Express } from 'express';
import compression from 'compression';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const PLACEHOLDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>HumanTest</title></head>
<body><main><h1>The web app is not built yet</h1><p>Run <code>npm run build -w web</code>, then reload.</p></main></body></html>`;

/** Who runs the product and how to reach them (gateway config), for the web app's pages. */
export interface SiteInfo {
  OPERATOR_NAME?: string;
  OPERATOR_ADDRESS?: string;
  SUPPORT_EMAIL?: string;
}

const attr = (v: string) =>
  v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The app's HTML with the operator's details as <meta name="htm:..."> tags in its head (read by
 * web/src/lib/site-info.ts): configuration at run time, no inline script, only what is set.
 */
export function withSiteInfo(html: string, info: SiteInfo): string {
  const tags = (
    [
      ['htm:operator', info.OPERATOR_NAME],
      ['htm:operator-address', info.OPERATOR_ADDRESS],
      ['htm:support-email', info.SUPPORT_EMAIL],
    ] as const
  )
    .filter(([, v]) => v)
    .map(([name, v]) => `<meta name="${name}" content="${attr(v!)}">`)
    .join('');
  if (!tags) return html;
  if (/<head>/i.test(html)) return html.replace(/<head>/i, (h) => `${h}${tags}`);
  // No <head> written out: right after the doctype, where the parser opens the head.
  return html.replace(/^(<!doctype html>)?/i, (d) => `${d}${tags}`);
}

/**
 * Serves the built web app: `/` gets landing.html (the landing page prerendered into the app's
 * HTML, shown before the JavaScript loads) when the build made one; every other non-/api GET
 * gets index.html (client-side routes, which must not flash the landing page). Both carry the
 * operator's details (`info`), read from disk again when the build changes them.
 */
export function serveWebApp(app: Express, dist: string, info: SiteInfo = {}): void {
  const index = path.join(dist, 'index.html');
  const landing = path.join(dist, 'landing.html');
  // Each HTML file with the site info, read again when its modification time changes (a rebuild).
  const cache = new Map<string, { mtimeMs: number; html: string }>();
  const page = (file: string): string => {
    const { mtimeMs } = statSync(file);
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit.html;
    const html = withSiteInfo(readFileSync(file, 'utf8'), info);
    cache.set(file, { mtimeMs, html });
    return html;
  };
  // Compress the app's HTML, JS and CSS (mounted after /api, so API answers stream untouched).
  app.use(compression());
  app.use(
    express.static(dist, {
      index: false,
      setHeaders: (res, file) => {
        if (file.includes(`${path.sep}assets${path.sep}`))
          res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      },
    }),
  );
  app.get('/{*splat}', (req, res, next) => {
    if (req.path.startsWith('/api/') || req.path === '/api') return next();
    res.setHeader('Cache-Control', 'no-cache');
    const file =
      req.path === '/' && existsSync(landing) ? landing : existsSync(index) ? index : null;
    if (!file) return void res.type('html').send(PLACEHOLDER);
    res.type('html').send(page(file));
  });
}
