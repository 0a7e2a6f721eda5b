/** The site-check service against real Postgres and Redis, fed jobs' and payments' events. */
import { randomUUID } from 'node:crypto';
import { createEventBus, type EventBus, type EventEnvelope } from '@htm/events';
import { startServiceHarness, testEvent } from '@htm/events/testing';
import { waitFor, type TestDatabase, type TestIssuer } from '@htm/service-kit/testing';
import type { SiteCheckResponse } from '@htm/contracts';
import { startSiteCheck, type SiteCheckService } from '../src/main.js';
import type { Connect, Resolve } from '../src/providers/egress-proxy.js';

export { waitFor };

export interface Caller {
  id: string;
  type: 'poster' | 'tester' | 'admin';
}

export interface Harness {
  svc: SiteCheckService;
  db: TestDatabase;
  issuer: TestIssuer;
  bus: EventBus;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  publish(...events: EventEnvelope[]): Promise<void>;
  /** A paid job: JobCreated then JobPaid (a pack: several jobs of one checkout). */
  payJobs(url: string, posterId: string, jobIds: string[], sessionId?: string): Promise<string>;
  /** GET /api/jobs/:id/site-check as a caller (answers status and body). */
  read(
    jobId: string,
    caller: Caller | null,
  ): Promise<{ status: number; body: SiteCheckResponse & { code?: string; detail?: string } }>;
  /** The site-check events this service published (its outbox), oldest first. */
  published(): Promise<Array<{ type: string; subject: string; data: Record<string, unknown> }>>;
  close(): Promise<void>;
}

export async function startHarness(
  label: string,
  env: Record<string, string> = {},
  network?: { resolve?: Resolve; connect?: Connect },
): Promise<Harness> {
  const { svc, db, issuer, sql, close } = await startServiceHarness(
    label,
    (e) => startSiteCheck(e, { port: 0, network }),
    { SITE_CHECK_POLL_MS: '200', ...env },
  );
  const bus = createEventBus(svc.ctx.config, undefined, { clientId: 'site-check-test' });
  const publish = (...events: EventEnvelope[]) => bus.publish(events);
  return {
    svc,
    db,
    issuer,
    bus,
    sql,
    publish,
    async payJobs(url, posterId, jobIds, sessionId = `cs_${randomUUID()}`) {
      for (const jobId of jobIds)
        await publish(
          ev('JobCreated', jobId, {
            jobId,
            posterId,
            title: 'Fixture shop',
            url,
            geoRule: 'global_beta',
            budgetCents: 100,
            expectedCompletionHours: 48,
          }),
        );
      for (const jobId of jobIds)
        await publish(
          ev('JobPaid', jobId, {
            jobId,
            sessionId,
            posterId,
            amountCents: 100,
            paidAt: new Date().toISOString(),
          }),
        );
      return sessionId;
    },
    async read(jobId, caller) {
      const headers: Record<string, string> = {};
      if (caller)
        headers.authorization = `Bearer ${await issuer.mint({ id: caller.id, type: caller.type, approved: true, email: `${caller.type}@gmail.com` })}`;
      const res = await fetch(`${svc.url}/api/jobs/${jobId}/site-check`, { headers });
      return { status: res.status, body: (await res.json()) as never };
    },
    async published() {
      const rows = await svc.ctx.dbHandle.query<{ envelope: Record<string, unknown> }>(
        'SELECT envelope FROM site_check.outbox ORDER BY seq',
      );
      return rows.map((r) => r.envelope as never);
    },
    close: () => close(() => bus.close()),
  };
}

/** An event as jobs or payments would publish it. */
export const ev = testEvent;
