import { describe, expect, it } from '@jest/globals';
import express, { Router } from 'express';
import { assertRoutesCatalogued, catalogueGaps, catalogueRoutes, routesOf } from './catalogue.js';
import { createAuth } from './auth.js';

const ok: express.RequestHandler = (_req, res) => {
  res.end();
};

/** An app with every analytics operation mounted from the catalogue. */
function analyticsApp(extra?: (app: express.Express) => void): express.Express {
  const app = express();
  const r = catalogueRoutes('analytics');
  r.get('/api/public/proof', ok);
  r.get('/api/admin/insights', ok);
  app.use(r.router);
  extra?.(app);
  return app;
}

describe('routes mounted from the operation catalogue', () => {
  it('mounts a catalogued operation at its express path and answers it', () => {
    const r = catalogueRoutes('jobs');
    r.post('/api/jobs/{id}/claim', ok);
    expect(routesOf(r.router)).toEqual([{ method: 'post', path: '/api/jobs/{id}/claim' }]);
  });

  it('refuses, when the service starts, a route the catalogue does not have or gives another service', () => {
    const r = catalogueRoutes('jobs');
    expect(() => r.get('/api/jobs/{id}/secret' as never, ok)).toThrow(
      /not in the operation catalogue/,
    );
    expect(() => r.get('/api/tester/my-earnings' as never, ok)).toThrow(
      /not in the operation catalogue/,
    );
    expect(() => r.delete('/api/favourites/{testerId}' as never, ok)).toThrow(
      /not in the operation catalogue/,
    );
  });

  it("refuses a role check that admits other roles than the operation's", () => {
    const auth = createAuth({
      jwksUrl: 'http://127.0.0.1:1/jwks',
      issuer: 'test',
      audience: 'test',
    });
    const r = catalogueRoutes('jobs');
    expect(() => r.post('/api/jobs/{id}/claim', auth.requireRole('tester', 'admin'), ok)).toThrow(
      /admits tester, admin but the catalogue says tester/,
    );
    expect(() => r.post('/api/jobs/{id}/claim', auth.requireRole('tester'), ok)).not.toThrow();
  });

  it('fails the start-up check for an express route with no catalogue entry, mounted any other way', () => {
    expect(() => assertRoutesCatalogued(analyticsApp(), 'analytics')).not.toThrow();
    const sneaky = analyticsApp((app) => {
      const inner = Router();
      inner.get('/api/admin/backdoor', ok);
      app.use(inner);
    });
    expect(catalogueGaps(sneaky, 'analytics').unknown).toEqual(['GET /api/admin/backdoor']);
    expect(() => assertRoutesCatalogued(sneaky, 'analytics')).toThrow(
      /Not in the catalogue: GET \/api\/admin\/backdoor/,
    );
  });

  it('fails the start-up check for an operation of the service without a route, unless left out on purpose', () => {
    const app = express();
    const r = catalogueRoutes('analytics');
    r.get('/api/public/proof', ok);
    app.use(r.router);
    expect(() => assertRoutesCatalogued(app, 'analytics')).toThrow(
      /Catalogued without a route: GET \/api\/admin\/insights/,
    );
    r.without('get', '/api/admin/insights');
    expect(() => assertRoutesCatalogued(app, 'analytics')).not.toThrow();
  });
});
