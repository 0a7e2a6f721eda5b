import { describe, expect, it } from '@jest/globals';
import express, { type RequestHandler } from 'express';
import { listen } from '@htm/service-kit';
import { loadGatewayConfig } from '../src/config.js';
import { helmetFor, securityHeaders } from '../src/http/security.js';

/** The headers an express app with only `mw` sends for GET /. */
async function headersOf(mw: RequestHandler): Promise<Record<string, string>> {
  const app = express();
  app.use(mw);
  app.get('/', (_req, res) => void res.json({ ok: true }));
  const s = await listen(app, 0);
  try {
    const res = await fetch(`${s.url}/`);
    const h = Object.fromEntries(res.headers.entries());
    for (const k of ['date', 'connection', 'keep-alive', 'content-length', 'content-type', 'etag'])
      delete h[k];
    return h;
  } finally {
    await s.close();
  }
}

describe('precomputed security headers', () => {
  for (const env of [
    {},
    {
      NODE_ENV: 'production',
      WEB_ORIGIN: 'https://app.example',
      SERVICE_TOKEN_SECRET: 'x'.repeat(40),
    },
  ]) {
    it(`are exactly what helmet sends (${env.NODE_ENV ?? 'development'})`, async () => {
      const cfg = loadGatewayConfig({ LOG_LEVEL: 'silent', ...env });
      const expected = await headersOf(helmetFor(cfg));
      expect(Object.keys(expected).length).toBeGreaterThan(10);
      expect(expected['x-powered-by']).toBeUndefined();
      expect(await headersOf(securityHeaders(cfg))).toEqual(expected);
    });
  }
});
