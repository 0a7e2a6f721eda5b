import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { deletionBodySchema, type AccountDeletionDto, type DataExportDto } from '@htm/contracts';
import { AppError, callerOf, catalogueRoutes, parseOrThrow } from '@htm/service-kit';
import type { IdentityDeps } from '../deps.js';
import {
  latestDeletion,
  latestExport,
  listOpenDeletions,
  listOpenExports,
  type AccountDeletionRow,
  type DataExportRow,
} from '../db/privacy.repository.js';
import { openExportDownload, requestDeletion, requestExport } from '../domain/privacy.js';

/** "Download my data" and "Delete my account" (the caller's own), and the admin's view of both. */
export function privacyRoutes(deps: IdentityDeps): Router {
  const r = catalogueRoutes('identity');
  const { authenticate } = deps.auth;
  const adminOnly = [authenticate, deps.auth.requireRole('admin')];
  const interval = deps.config.EXPORT_INTERVAL_MS;

  r.get('/api/me/privacy', authenticate, async (req, res) => {
    const id = callerOf(req).id;
    const [exp, del] = await Promise.all([latestExport(deps.db, id), latestDeletion(deps.db, id)]);
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      export: exp ? toExportDto(exp, interval) : null,
      deletion: del ? toDeletionDto(del) : null,
    });
  });

  r.post('/api/me/exports', authenticate, async (req, res) => {
    const row = await requestExport(deps, callerOf(req).id);
    res.status(202).json({ export: toExportDto(row, interval) });
  });

  r.get('/api/me/exports/{id}/download', async (req, res) => {
    const { row, chunks } = await openExportDownload(
      deps,
      String(req.params.id),
      req.query.expires,
      req.query.sig,
    );
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="my-data-${row.requestedAt.toISOString().slice(0, 10)}.zip"`,
    );
    if (row.sizeBytes !== null) res.setHeader('Content-Length', String(row.sizeBytes));
    try {
      await pipeline(Readable.from(chunks()), res);
    } catch (err) {
      // The client went away, or the export expired halfway: nothing more to send.
      deps.logger.warn(
        { exportId: row.id, err: (err as Error).message },
        'data export download ended early',
      );
      res.destroy();
    }
  });

  r.post('/api/me/deletion', authenticate, async (req, res) => {
    const caller = callerOf(req);
    if (caller.type === 'admin')
      throw AppError.forbidden(
        'The admin account cannot be deleted: name another admin (ADMIN_EMAIL) first.',
        'admin_not_deletable',
      );
    const body = parseOrThrow(deletionBodySchema, req.body ?? {});
    const row = await requestDeletion(deps, caller.id, body.email);
    res.status(202).json({ deletion: toDeletionDto(row) });
  });

  r.get('/api/admin/privacy', ...adminOnly, async (_req, res) => {
    const since = new Date(Date.now() - 30 * 24 * 3600_000);
    const [exports, deletions] = await Promise.all([
      listOpenExports(deps.db, since),
      listOpenDeletions(deps.db, since),
    ]);
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      exports: exports.map((e) => ({ ...toExportDto(e, interval), email: e.email })),
      deletions: deletions.map((d) => ({
        ...toDeletionDto(d),
        email: d.status === 'scheduled' ? d.email : null,
      })),
    });
  });

  r.post('/api/admin/users/{id}/export', ...adminOnly, async (req, res) => {
    const row = await requestExport(deps, userIdParam(req.params.id), callerOf(req).id);
    res.status(202).json({ export: toExportDto(row, interval) });
  });

  r.post('/api/admin/users/{id}/deletion', ...adminOnly, async (req, res) => {
    const body = parseOrThrow(deletionBodySchema, req.body ?? {});
    const row = await requestDeletion(
      deps,
      userIdParam(req.params.id),
      body.email,
      callerOf(req).id,
    );
    res.status(202).json({ deletion: toDeletionDto(row) });
  });

  return r.router;
}

function userIdParam(v: unknown): string {
  const id = String(v);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    throw AppError.notFound('No such user.', 'user_not_found');
  return id;
}

export function toExportDto(e: DataExportRow, intervalMs: number): DataExportDto {
  return {
    id: e.id,
    user_id: e.userId,
    status: e.status,
    parts_done: e.partsDone,
    parts_total: e.partsTotal,
    progress:
      e.status === 'ready'
        ? 100
        : Math.round((100 * e.partsDone.length) / Math.max(1, e.partsTotal + 1)),
    requested_at: e.requestedAt.toISOString(),
    ready_at: e.readyAt?.toISOString() ?? null,
    expires_at: e.expiresAt?.toISOString() ?? null,
    size_bytes: e.sizeBytes ?? null,
    requested_by_admin: e.requestedBy !== null,
    next_allowed_at: new Date(
      e.status === 'failed' ? e.requestedAt.getTime() : e.requestedAt.getTime() + intervalMs,
    ).toISOString(),
  };
}

export function toDeletionDto(d: AccountDeletionRow): AccountDeletionDto {
  return {
    id: d.id,
    user_id: d.userId,
    status: d.status,
    requested_at: d.requestedAt.toISOString(),
    due_at: d.dueAt.toISOString(),
    cancelled_at: d.cancelledAt?.toISOString() ?? null,
    completed_at: d.completedAt?.toISOString() ?? null,
    services_done: d.servicesDone,
    requested_by_admin: d.requestedBy !== null,
  };
}
