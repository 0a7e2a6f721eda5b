import express, { type Express } from 'express';
import compression from 'compression';
import { existsSync } from 'node:fs';
import path from 'node:path';

const PLACEHOLDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>HumanTest</title></head>
<body><main><h1>The web app is not built yet</h1><p>Run <code>npm run build -w web</code>, then reload.</p></main></body></html>`;

/**
 * Serves the built web app: `/` gets landing.html (the landing page prerendered into the app's
 * HTML, shown before the JavaScript loads) when the build made one; every other non-/api GET
 * gets index.html (client-side routes, which must not flash the landing page).
 */
export function serveWebApp(app: Express, dist: string): void {
  const index = path.join(dist, 'index.html');
  const landing = path.join(dist, 'landing.html');
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
    if (req.path === '/' && existsSync(landing)) res.sendFile(landing);
    else if (existsSync(index)) res.sendFile(index);
    else res.type('html').send(PLACEHOLDER);
  });
}
