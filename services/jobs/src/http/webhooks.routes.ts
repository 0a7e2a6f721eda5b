import { Router, type Request } from 'express';
import {
  webhookEndpointBodySchema,
  type WebhookDeliveryView,
  type WebhookEndpointView,
} from '@htm/contracts';
import { callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { JobsDeps } from '../deps.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../db/schema.js';
import {
  createEndpoint,
  endpointDeliveries,
  listOwnEndpoints,
  redeliver,
  removeEndpoint,
  sendTestWebhook,
} from '../domain/webhooks.js';

const param = (req: Request, name: string) => String(req.params[name] ?? '');
const iso = (d: Date | null) => (d ? d.toISOString() : null);

const toEndpointView = (e: WebhookEndpointRow): WebhookEndpointView => ({
  id: e.id,
  url: e.url,
  events: e.events,
  created_at: e.createdAt.toISOString(),
  disabled_at: iso(e.disabledAt),
});

export const toDeliveryView = (d: WebhookDeliveryRow): WebhookDeliveryView => ({
  id: d.id,
  webhook_id: `msg_${d.id.replace(/-/g, '')}`,
  event: d.eventType,
  status: d.status as WebhookDeliveryView['status'],
  attempts: d.attempts,
  last_response_code: d.lastResponseCode,
  last_error: d.lastError,
  next_attempt_at: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
  created_at: d.createdAt.toISOString(),
  delivered_at: iso(d.deliveredAt),
});

/** The poster's webhook endpoints (Standard Webhooks); each caller sees only their own. */
export function webhooksRoutes(deps: JobsDeps): Router {
  const r = catalogueRoutes('jobs');
  const { authenticate, requireRole } = deps.auth;
  const who = [authenticate, requireRole('poster', 'admin')];

  r.post('/api/webhook-endpoints', ...who, async (req, res) => {
    const body = parseOrThrow(webhookEndpointBodySchema, req.body ?? {});
    const e = await createEndpoint(deps, callerOf(req), body);
    res.status(201).json({ ...toEndpointView(e), secret: e.secret });
  });
  r.get('/api/webhook-endpoints', ...who, async (req, res) => {
    res.json({ endpoints: (await listOwnEndpoints(deps, callerOf(req))).map(toEndpointView) });
  });
  r.delete('/api/webhook-endpoints/{id}', ...who, async (req, res) => {
    await removeEndpoint(deps, callerOf(req), param(req, 'id'));
    res.status(204).end();
  });
  r.get('/api/webhook-endpoints/{id}/deliveries', ...who, async (req, res) => {
    res.json({
      deliveries: (await endpointDeliveries(deps, callerOf(req), param(req, 'id'))).map(
        toDeliveryView,
      ),
    });
  });
  r.post('/api/webhook-endpoints/{id}/test', ...who, async (req, res) => {
    res.status(202).json({
      delivery: toDeliveryView(await sendTestWebhook(deps, callerOf(req), param(req, 'id'))),
    });
  });
  r.post(
    '/api/webhook-endpoints/{id}/deliveries/{deliveryId}/redeliver',
    ...who,
    async (req, res) => {
      res.status(202).json({
        delivery: toDeliveryView(
          await redeliver(deps, callerOf(req), param(req, 'id'), param(req, 'deliveryId')),
        ),
      });
    },
  );
  return r.router;
}
