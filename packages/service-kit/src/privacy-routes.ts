import type { Router, RequestHandler } from 'express';
import { catalogueRoutes } from './catalogue.js';
import type { Readable } from 'node:stream';
import { AppError } from './errors.js';
import { requireServiceToken, ServiceKeyring, type ServiceTokenConfig } from './service-token.js';

/**
 * The /internal/privacy routes every service answers identity with ("Your data, your call"):
 * - GET  users/:id/export?email= its part of the user's data export ({data, files}); email: the account's
 * - GET  users/:id/files/:fileId a file of that part (jobs: uploads and recordings)
 * - GET  users/:id/blockers      sentences saying what stops the user's account deletion now
 * - GET  erasures/:eventId       whether it handled that UserDeleted event (its erasure is done)
 * Only identity's service token is accepted. The service supplies the answers; nothing else here.
 */
export interface PrivacyAnswers {
  part(
    userId: string,
    email: string | undefined,
  ): Promise<{
    data: Record<string, unknown>;
    files?: Array<{ id: string; name: string; size: number | null }>;
  }>;
  file?(
    userId: string,
    fileId: string,
  ): Promise<{ stream: Readable; contentType?: string } | undefined>;
  blockers?(userId: string): Promise<string[]>;
  handled(eventId: string): Promise<boolean>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The keyring that accepts identity's privacy calls (production: SERVICE_TOKEN_PUBLIC_KEYS names "identity"). */
export function privacyKeyring(self: string, cfg: ServiceTokenConfig): ServiceKeyring {
  return ServiceKeyring.fromConfig(self, cfg, { acceptsFrom: ['identity'] });
}

export function privacyRoutes(keys: ServiceKeyring, answers: PrivacyAnswers): Router {
  const r = catalogueRoutes('every');
  const identityOnly: RequestHandler = requireServiceToken(keys, ['identity']);
  const userId = (v: unknown) => {
    const id = String(v);
    if (!UUID.test(id)) throw AppError.notFound('No such user.', 'user_not_found');
    return id;
  };
  r.get('/internal/privacy/users/{userId}/export', identityOnly, async (req, res) => {
    const email =
      typeof req.query.email === 'string' && req.query.email.length <= 320
        ? req.query.email
        : undefined;
    const part = await answers.part(userId(req.params.userId), email);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ data: part.data, files: part.files ?? [] });
  });
  r.get('/internal/privacy/users/{userId}/files/{fileId}', identityOnly, async (req, res) => {
    const found = answers.file
      ? await answers.file(userId(req.params.userId), String(req.params.fileId))
      : undefined;
    if (!found) throw AppError.notFound('No such file of this user.', 'file_not_found');
    res.setHeader('Content-Type', found.contentType ?? 'application/octet-stream');
    found.stream.once('error', () => res.destroy());
    found.stream.pipe(res);
  });
  r.get('/internal/privacy/users/{userId}/blockers', identityOnly, async (req, res) => {
    res.json({
      blockers: answers.blockers ? await answers.blockers(userId(req.params.userId)) : [],
    });
  });
  r.get('/internal/privacy/erasures/{eventId}', identityOnly, async (req, res) => {
    const id = String(req.params.eventId);
    res.json({ handled: UUID.test(id) ? await answers.handled(id) : false });
  });
  return r.router;
}
