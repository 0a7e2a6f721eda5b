import { Router } from 'express';
import { telemetryBodySchema } from '@htm/contracts';
import { bearerToken, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { AdminDeps } from '../deps.js';
import { publishTelemetry } from '../domain/publish-telemetry.js';

export function telemetryRoutes(deps: AdminDeps): Router {
  const r = catalogueRoutes('admin');
  r.post('/api/telemetry', async (req, res) => {
    const body = parseOrThrow(telemetryBodySchema, req.body);
    // The token only attributes the batch. An expired or bad token makes it anonymous rather
    // than a 401: api_refresh_failure is reported exactly when the token has gone stale.
    let userId: string | null = null;
    const token = bearerToken(req.headers.authorization);
    if (token)
      userId = await deps.auth.verify(token).then(
        (c) => c.id,
        () => null,
      );
    const { accepted } = await publishTelemetry(deps, body, userId);
    res.status(202).json({ accepted });
  });
  return r.router;
}
