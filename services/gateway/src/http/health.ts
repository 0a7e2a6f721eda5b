import type { RequestHandler } from 'express';
import type { ServiceName } from './route-table.js';

/** GET /api/healthz: the gateway and every service's /readyz, 503 if any is not ready. */
export function aggregateHealth(services: Record<ServiceName, string>): RequestHandler {
  return async (_req, res) => {
    const entries = await Promise.all(
      Object.entries(services).map(async ([name, url]) => {
        try {
          const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
          const body = (await r.json().catch(() => ({}))) as { checks?: unknown };
          return [name, { status: r.ok ? 'ok' : 'unavailable', checks: body.checks }] as const;
        } catch (err) {
          return [name, { status: 'unavailable', error: (err as Error).message }] as const;
        }
      }),
    );
    const ok = entries.every(([, e]) => e.status === 'ok');
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', gateway: 'ok', services: Object.fromEntries(entries) });
  };
}
