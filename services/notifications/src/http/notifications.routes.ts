import { Router } from 'express';
import {
  devMailQuerySchema,
  NOTIFICATION_KIND_INFO,
  notificationPreferencesBodySchema,
  unsubscribeQuerySchema,
  type DevMailResponse,
  type NotificationPreferencesResponse,
} from '@htm/contracts';
import { AppError, callerOf, parseOrThrow } from '@htm/service-kit';
import type { NotificationsDeps } from '../deps.js';
import { readPreferences, unsubscribe, updatePreferences } from '../domain/preferences.js';
import { sentTo } from '../db/message.repository.js';
import { escapeHtml } from '@htm/service-kit/html';

export function notificationsRoutes(deps: NotificationsDeps): Router {
  const r = Router();
  const { authenticate } = deps.auth;

  r.get('/api/notifications/preferences', authenticate, async (req, res) => {
    const body: NotificationPreferencesResponse = {
      preferences: await readPreferences(deps.db, callerOf(req).id),
    };
    res.json(body);
  });

  r.patch('/api/notifications/preferences', authenticate, async (req, res) => {
    const patch = parseOrThrow(notificationPreferencesBodySchema, req.body ?? {});
    const body: NotificationPreferencesResponse = {
      preferences: await updatePreferences(deps.db, callerOf(req).id, patch),
    };
    res.json(body);
  });

  // The link in every e-mail (GET) and RFC 8058 one-click from the mail client (POST, same URL).
  r.get('/api/notifications/unsubscribe', async (req, res) => {
    const { token } = parseOrThrow(unsubscribeQuerySchema, req.query);
    const { kind } = await unsubscribe(deps.db, deps.unsubscribeSecret, token);
    const label = NOTIFICATION_KIND_INFO[kind].label;
    res
      .type('html')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unsubscribed</title></head><body style="font-family:sans-serif">` +
          `<h1>You are unsubscribed</h1><p>You will no longer get the e-mail “${escapeHtml(label)}”.</p>` +
          `<p>You can switch e-mails on again in your <a href="/dashboard">profile</a>.</p></body></html>`,
      );
  });
  r.post('/api/notifications/unsubscribe', async (req, res) => {
    const { token } = parseOrThrow(unsubscribeQuerySchema, req.query);
    const { kind } = await unsubscribe(deps.db, deps.unsubscribeSecret, token);
    res.json({ unsubscribed: true, kind });
  });

  // Development only: what was "sent" to an address (the embedded mode writes no real e-mail).
  r.get('/api/dev/mail', async (req, res) => {
    if (deps.config.NODE_ENV === 'production') throw AppError.notFound('Not found.', 'not_found');
    const { to } = parseOrThrow(devMailQuerySchema, req.query);
    const rows = await sentTo(deps.db, to);
    const body: DevMailResponse = {
      messages: rows.map((m) => ({
        to: m.toEmail ?? to,
        subject: m.subject ?? '',
        text: m.text ?? '',
        created_at: (m.sentAt ?? m.createdAt).toISOString(),
      })),
    };
    res.json(body);
  });

  return r;
}
