import { Router, type Response } from 'express';
import {
  devMailQuerySchema,
  NOTIFICATION_KIND_INFO,
  NOTIFICATION_MESSAGES,
  notificationPreferencesBodySchema,
  unsubscribeQuerySchema,
  type DevMailResponse,
  type NotificationPreferencesResponse,
} from '@htm/contracts';
import { AppError, callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { NotificationsDeps } from '../deps.js';
import { devMailOn } from '../config.js';
import {
  checkUnsubscribeToken,
  readPreferences,
  unsubscribe,
  updatePreferences,
} from '../domain/preferences.js';
import { sentTo } from '../db/message.repository.js';
import {
  confirmPage,
  donePage,
  invalidLinkPage,
  UNSUBSCRIBE_STYLE_HASH,
} from './unsubscribe.page.js';

export function notificationsRoutes(deps: NotificationsDeps): Router {
  const r = catalogueRoutes('notifications');
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

  // The link in every e-mail: GET asks (mail scanners follow links), only POST unsubscribes: the
  // page's button, or RFC 8058 one-click from the mail client (List-Unsubscribe-Post). Browsers
  // get pages, bad links included; the mail client's POST gets JSON.
  const pageHeaders = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; style-src ${UNSUBSCRIBE_STYLE_HASH}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    'x-content-type-options': 'nosniff',
    // same-origin: the button's POST carries our Origin (the gateway refuses `Origin: null` with cookies).
    'referrer-policy': 'same-origin',
    'x-robots-tag': 'noindex',
  };
  const invalidPage = (res: Response, err: unknown) => {
    if (!(err instanceof AppError) || err.status !== 400) throw err;
    res.status(400).set(pageHeaders).send(invalidLinkPage(NOTIFICATION_MESSAGES.tokenInvalid));
  };
  r.get('/api/notifications/unsubscribe', async (req, res) => {
    // A person following the link gets pages; any other client the JSON error shape, as the POST.
    const browser = req.accepts(['json', 'html']) === 'html';
    try {
      const { token } = parseOrThrow(unsubscribeQuerySchema, req.query);
      const { kind } = checkUnsubscribeToken(deps.unsubscribeSecret, token);
      const action = `/api/notifications/unsubscribe?token=${encodeURIComponent(token)}`;
      res
        .status(200)
        .set(pageHeaders)
        .send(confirmPage(NOTIFICATION_KIND_INFO[kind].label, action));
    } catch (err) {
      if (!browser) throw err;
      invalidPage(res, err);
    }
  });
  r.post('/api/notifications/unsubscribe', async (req, res) => {
    const browser = req.accepts(['json', 'html']) === 'html';
    try {
      const { token } = parseOrThrow(unsubscribeQuerySchema, req.query);
      const { kind } = await unsubscribe(deps.db, deps.unsubscribeSecret, token);
      if (browser)
        res.status(200).set(pageHeaders).send(donePage(NOTIFICATION_KIND_INFO[kind].label));
      else res.json({ unsubscribed: true, kind });
    } catch (err) {
      if (!browser) throw err;
      invalidPage(res, err);
    }
  });

  // Development only: what was "sent" to an address (the embedded mode writes no real e-mail).
  // Only while the development sign-in is on (anyone may be anyone anyway) and no SMTP server
  // is configured (then mail goes to real inboxes, and nobody else may read it here).
  r.get('/api/dev/mail', async (req, res) => {
    if (!devMailOn(deps.config)) throw AppError.notFound('Not found.', 'not_found');
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

  return r.router;
}
