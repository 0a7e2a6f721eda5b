import { describe, expect, it } from '@jest/globals';
import type { Request, Response } from 'express';
import { publicHealth, type HealthReport } from './health.js';

/** Runs the public /api/healthz handler on a report; returns its status and body. */
async function answer(report: HealthReport): Promise<{ status: number; body: unknown }> {
  const out = { status: 0, body: undefined as unknown };
  const res = {
    setHeader: () => res,
    status: (s: number) => ((out.status = s), res),
    json: (b: unknown) => ((out.body = b), res),
  } as unknown as Response;
  await publicHealth(async () => report)({} as Request, res, () => undefined);
  return out;
}

describe('GET /api/healthz (public)', () => {
  it('says "low disk space" and which service, without the check details', async () => {
    const r = await answer({
      ok: false,
      body: {
        status: 'degraded',
        gateway: 'ok',
        services: {
          identity: { status: 'ok', checks: { database: 'ok' } },
          jobs: {
            status: 'unavailable',
            checks: {
              database: 'ok',
              disk: 'low disk space: 3 MB free under /srv/uploads, below MIN_FREE_DISK_BYTES (67 MB)',
            },
          },
        },
      },
    });
    expect(r).toEqual({
      status: 503,
      body: { status: 'degraded', reasons: ['jobs: low disk space'] },
    });
  });

  it('names a replica set with one replica low on disk, and keeps other failures private', async () => {
    const r = await answer({
      ok: false,
      body: {
        status: 'degraded',
        gateway: 'ok',
        services: {
          jobs: {
            status: 'ok',
            ready_replicas: 1,
            replicas: {
              'http://10.0.0.1:8082': {
                status: 'unavailable',
                checks: { disk: 'low disk space: ...' },
              },
              'http://10.0.0.2:8082': { status: 'ok', checks: {} },
            },
          },
          admin: { status: 'unavailable', error: 'connect ECONNREFUSED 10.0.0.9:8084' },
        },
      },
    });
    expect(r).toEqual({
      status: 503,
      body: { status: 'degraded', reasons: ['jobs: low disk space'] },
    });
    expect(JSON.stringify(r.body)).not.toContain('10.0.0');
  });
});
