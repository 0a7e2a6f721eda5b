import type { RequestHandler } from 'express';
import type { ServiceName } from './route-table.js';

type ReplicaHealth = { status: 'ok' | 'unavailable'; checks?: unknown; error?: string };
type ServiceHealth =
  | ReplicaHealth
  | {
      status: 'ok' | 'unavailable';
      ready_replicas: number;
      replicas: Record<string, ReplicaHealth>;
    };

export interface HealthReport {
  ok: boolean;
  body: { status: 'ok' | 'degraded'; gateway: 'ok'; services: Record<string, ServiceHealth> };
}

async function readyz(url: string): Promise<ReplicaHealth> {
  try {
    const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
    const body = (await r.json().catch(() => ({}))) as { checks?: unknown };
    return { status: r.ok ? 'ok' : 'unavailable', checks: body.checks };
  } catch (err) {
    return { status: 'unavailable', error: (err as Error).message };
  }
}

/**
 * Every service's /readyz, looked at once per `cacheMs` however many ask: the public health
 * route cannot be used to make the gateway fan out to the services on every request. A service
 * with several replicas is ready when at least one is; each replica is listed.
 */
export function healthChecker(
  services: Record<ServiceName, string[]>,
  cacheMs: number,
): () => Promise<HealthReport> {
  let last: { at: number; report: Promise<HealthReport> } | undefined;
  const look = async (): Promise<HealthReport> => {
    const entries = await Promise.all(
      Object.entries(services).map(
        async ([name, urls]): Promise<readonly [string, ServiceHealth]> => {
          if (urls.length === 1) return [name, await readyz(urls[0])] as const;
          const replicas = await Promise.all(urls.map(async (u) => [u, await readyz(u)] as const));
          const up = replicas.filter(([, h]) => h.status === 'ok').length;
          return [
            name,
            {
              status: up > 0 ? 'ok' : 'unavailable',
              ready_replicas: up,
              replicas: Object.fromEntries(replicas),
            },
          ] as const;
        },
      ),
    );
    const ok = entries.every(([, e]) => e.status === 'ok');
    return {
      ok,
      body: {
        status: ok ? 'ok' : 'degraded',
        gateway: 'ok',
        services: Object.fromEntries(entries),
      },
    };
  };
  return () => {
    if (!last || Date.now() - last.at >= cacheMs) last = { at: Date.now(), report: look() };
    return last.report;
  };
}

/** Failing readiness checks the public may be told about (no address, no error text), by check name. */
const PUBLIC_REASONS: Record<string, string> = { disk: 'low disk space' };

/** "<service>: low disk space" for every service (or replica) whose readiness failed a check named in PUBLIC_REASONS. */
function publicReasons(services: Record<string, ServiceHealth>): string[] {
  const reasons = new Set<string>();
  const add = (name: string, h: ReplicaHealth) => {
    const checks = (h.checks ?? {}) as Record<string, unknown>;
    for (const [check, result] of Object.entries(checks))
      if (result !== 'ok' && PUBLIC_REASONS[check])
        reasons.add(`${name}: ${PUBLIC_REASONS[check]}`);
  };
  for (const [name, h] of Object.entries(services)) {
    if ('replicas' in h) for (const r of Object.values(h.replicas)) add(name, r);
    else add(name, h);
  }
  return [...reasons];
}

/**
 * GET /api/healthz (public): the overall status, 503 if any service is not ready, and `reasons`
 * only for causes an operator can name without details (low disk space). Which service, its
 * address and its errors are for operators: GET /healthz on the metrics port.
 */
export function publicHealth(check: () => Promise<HealthReport>): RequestHandler {
  return async (_req, res) => {
    const { ok, body } = await check();
    const reasons = ok ? [] : publicReasons(body.services);
    res.setHeader('Cache-Control', 'no-store');
    res
      .status(ok ? 200 : 503)
      .json(reasons.length ? { status: body.status, reasons } : { status: body.status });
  };
}

/** GET /healthz on the metrics port: the full report (each service's status and checks). */
export function detailedHealth(check: () => Promise<HealthReport>): RequestHandler {
  return async (_req, res) => {
    const { ok, body } = await check();
    res.status(ok ? 200 : 503).json(body);
  };
}
