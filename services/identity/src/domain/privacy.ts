import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createEvent } from '@htm/events';
import { PRIVACY_SERVICES, privacyMessages, type PrivacyService } from '@htm/contracts';
import { AppError, getCorrelationId } from '@htm/service-kit';
import type { IdentityDeps } from '../deps.js';
import {
  cancelScheduledDeletion,
  claimExport,
  endUserExports,
  expireExports,
  findExport,
  insertDeletion,
  insertExport,
  latestExport,
  listErasingDeletions,
  lockDueDeletion,
  lockUserExports,
  markDeletionErasing,
  markExportFailed,
  markExportReady,
  openDeletion,
  readIdentityPart,
  eraseIdentityUser,
  setDeletionProgress,
  setExportProgress,
  deleteExportChunks,
  readExportChunk,
  replaceExportChunks,
  type AccountDeletionRow,
  type DataExportRow,
} from '../db/privacy.repository.js';
import { findUser, lockUser } from '../db/user.repository.js';
import type { Tx } from '@htm/service-kit/db';
import { normaliseEmail } from './gmail-rule.js';
import { announceClaimsChanged, revokeUserSessions } from './revoke-sessions.js';
import { hmac, safeEqual } from './tokens.js';

/**
 * "Your data, your call" (issue 38), the orchestration identity owns:
 * - Download my data: a request row + DataExportRequested; the privacy sweep builds the zip from
 *   every service's own answer (GET /internal/privacy/users/:id/export, and jobs' files), then
 *   DataExportReady carries the signed link notifications e-mails (valid EXPORT_LINK_TTL_MS).
 * - Delete my account: typed e-mail, blockers asked of every service, a deletion scheduled
 *   DELETION_GRACE_MS ahead (UserDeletionRequested, every sign-in ended); signing in again cancels
 *   it (UserDeletionCancelled). When due, the sweep erases identity's part and publishes UserDeleted;
 *   every service erases its own part in its handler and answers for it (GET
 *   /internal/privacy/erasures/:eventId) until the deletion is `completed`.
 */

/** A build running longer than this is taken to have stopped (a restart) and is started again. */
const EXPORT_STALE_MS = 10 * 60_000;
const EXPORT_MAX_ATTEMPTS = 5;

export function exportDir(deps: IdentityDeps): string {
  return deps.config.EXPORT_DIR ?? path.join(deps.config.DATA_DIR, 'exports');
}
/** A finished zip is stored in the database in pieces of this size (any replica serves the link). */
const EXPORT_CHUNK_BYTES = 1 << 20;

// ---- download my data ----

export async function requestExport(
  deps: IdentityDeps,
  userId: string,
  actorId?: string,
): Promise<DataExportRow> {
  const correlationId = getCorrelationId();
  return deps.events.inTransaction(async (tx) => {
    const user = await findUser(tx, userId);
    if (!user || user.googleSub.startsWith('deleted:'))
      throw AppError.notFound('No such user.', 'user_not_found');
    await lockUserExports(tx, userId);
    const last = await latestExport(tx, userId);
    if (last && (last.status === 'pending' || last.status === 'building'))
      throw AppError.conflict(privacyMessages.exportRunning, 'export_running');
    // One a day for the user; the admin running one for a user who wrote in is not held to it.
    if (
      !actorId &&
      last &&
      last.status !== 'failed' &&
      last.requestedAt.getTime() > Date.now() - deps.config.EXPORT_INTERVAL_MS
    ) {
      throw new AppError('rate_limited', privacyMessages.exportDaily, {
        code: 'export_daily_limit',
      });
    }
    const row = await insertExport(tx, {
      userId,
      partsTotal: PRIVACY_SERVICES.length,
      requestedBy: actorId ?? null,
    });
    await deps.events.record(
      tx,
      createEvent(
        'DataExportRequested',
        userId,
        {
          exportId: row.id,
          userId,
          requestedAt: row.requestedAt.toISOString(),
          ...(actorId ? { actorId } : {}),
        },
        { correlationId },
      ),
    );
    return row;
  });
}

/** The signed download link of an export (the e-mailed one). */
export function exportDownloadUrl(deps: IdentityDeps, id: string, expiresAt: Date): string {
  const expires = String(expiresAt.getTime());
  const sig = hmac(deps.config.AUTH_SECRET, 'data-export', `${id}.${expires}`);
  return `${deps.config.PUBLIC_URL.replace(/\/+$/, '')}/api/me/exports/${id}/download?expires=${expires}&sig=${sig}`;
}

/** Checks a download link: its signature, its expiry and that the export is still ready. */
export async function openExportDownload(
  deps: IdentityDeps,
  id: string,
  expires: unknown,
  sig: unknown,
): Promise<{ row: DataExportRow; chunks: () => AsyncGenerator<Buffer> }> {
  const refused = () =>
    AppError.forbidden(
      'This download link is not valid. Ask for a new export from your profile.',
      'export_link_invalid',
    );
  if (typeof expires !== 'string' || typeof sig !== 'string' || !/^\d{1,15}$/.test(expires))
    throw refused();
  if (!safeEqual(sig, hmac(deps.config.AUTH_SECRET, 'data-export', `${id}.${expires}`)))
    throw refused();
  if (Number(expires) < Date.now())
    throw AppError.forbidden(
      'This download link has expired (links last 24 hours). Ask for a new export from your profile.',
      'export_link_expired',
    );
  const row = /^[0-9a-f-]{36}$/i.test(id) ? await findExport(deps.db, id) : undefined;
  if (!row || row.status !== 'ready')
    throw AppError.notFound(
      'This export is no longer available. Ask for a new one from your profile.',
      'export_gone',
    );
  // The zip's pieces one at a time, so a large archive is never held in memory.
  async function* chunks() {
    for (let seq = 0; ; seq++) {
      const data = await readExportChunk(deps.db, id, seq);
      if (!data) return;
      yield data;
    }
  }
  return { row, chunks };
}

/** Builds one export: every service's part as services/<name>.json, the user's files under files/. */
export async function buildExport(deps: IdentityDeps, row: DataExportRow): Promise<void> {
  const dir = exportDir(deps);
  await mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `${row.id}.zip.part`);
  // Loaded on the first export, not with the service: a large package few starts need.
  const { default: archiver } = await import('archiver');
  const archive = archiver('zip', { zlib: { level: 6 } });
  const out = createWriteStream(tmp);
  const closed = new Promise<void>((resolve, reject) => {
    out.on('close', resolve);
    out.on('error', reject);
    archive.on('error', reject);
  });
  // Awaited below on success; on a failure the catch block cleans up (no unhandled rejection).
  closed.catch(() => undefined);
  archive.pipe(out);
  // Entries are added one at a time, each file's stream read to its end before the next is asked
  // for. A zip that cannot be written (ENOSPC: the disk is full) ends the wait at once: the archive
  // stops taking data then, and an entry that never comes would hold the privacy sweep forever.
  const add = (source: string | Readable, name: string) =>
    Promise.race([
      new Promise<void>((resolve, reject) => {
        archive.once('entry', () => resolve());
        if (typeof source !== 'string') source.once('error', reject);
        archive.append(source, { name });
      }),
      closed,
    ]);
  try {
    await add(readme(row), 'README.txt');
    const done: string[] = [];
    const user = await findUser(deps.db, row.userId);
    if (!user) throw new Error('the user of this export is gone');
    for (const service of PRIVACY_SERVICES) {
      const part =
        service === 'identity'
          ? { data: await readIdentityPart(deps.db, row.userId), files: [] }
          : await deps.privacy.part(service, row.userId, user.email);
      await add(
        JSON.stringify(
          { service, exported_at: new Date().toISOString(), ...part.data, files: part.files },
          null,
          2,
        ),
        `services/${service}.json`,
      );
      for (const f of part.files)
        await add(
          await deps.privacy.file(service, row.userId, f.id),
          `files/${service}/${safeName(f.id, f.name)}`,
        );
      done.push(service);
      await setExportProgress(deps.db, row.id, done);
    }
    await Promise.race([archive.finalize(), closed]);
    await closed;
  } catch (err) {
    archive.abort();
    await rm(tmp, { force: true });
    throw err;
  }
  // Into the database (the link may be answered by another replica), then off this disk.
  let size: number;
  try {
    size = await replaceExportChunks(
      deps.db,
      row.id,
      createReadStream(tmp, { highWaterMark: EXPORT_CHUNK_BYTES }),
    );
  } finally {
    await rm(tmp, { force: true });
  }
  const expiresAt = new Date(Date.now() + deps.config.EXPORT_LINK_TTL_MS);
  await deps.events.inTransaction(async (tx) => {
    const ready = await markExportReady(tx, row.id, { sizeBytes: size, expiresAt });
    const user = await findUser(tx, row.userId);
    if (!ready || !user) return;
    await deps.events.record(
      tx,
      createEvent('DataExportReady', row.userId, {
        exportId: row.id,
        userId: row.userId,
        email: user.email,
        downloadUrl: exportDownloadUrl(deps, row.id, expiresAt),
        expiresAt: expiresAt.toISOString(),
      }),
    );
  });
  deps.logger.info({ exportId: row.id, sizeBytes: size }, 'data export ready');
}

function safeName(id: string, name: string): string {
  const clean = name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-100);
  return `${id.slice(0, 8)}-${clean || 'file'}`;
}

function readme(row: DataExportRow): string {
  return [
    'Your data from the $1 human website-testing marketplace',
    `Export ${row.id}, asked for ${row.requestedAt.toISOString()}.`,
    '',
    'services/<service>.json  everything that service stores about you (one file per service):',
    '  identity       your profile, sign-in sessions (device, dates), strikes and ratings received',
    '  jobs           jobs you posted, work you submitted, findings, ratings given and received, share links, webhooks (without secrets), favourites',
    '  payments       ledger entries about you (payments, earnings, payouts), payout account, checkouts',
    '  admin          waitlist entries, feedback and leads you sent',
    '  notifications  e-mails sent to you and your e-mail preferences',
    '  analytics      what the insights keep about you as a tester',
    'files/<service>/  your uploaded screenshots and files, and your screen recordings',
    '',
  ].join('\n');
}

// ---- delete my account ----

export async function requestDeletion(
  deps: IdentityDeps,
  userId: string,
  typedEmail: string,
  actorId?: string,
): Promise<AccountDeletionRow> {
  const user = await findUser(deps.db, userId);
  if (!user || user.googleSub.startsWith('deleted:'))
    throw AppError.notFound('No such user.', 'user_not_found');
  if (normaliseEmail(typedEmail) !== user.email)
    throw AppError.invalid(
      privacyMessages.emailMismatch,
      { email: [privacyMessages.emailMismatch] },
      'email_mismatch',
    );
  if (user.type === 'admin')
    throw AppError.forbidden(
      'The admin account cannot be deleted: name another admin (ADMIN_EMAIL) first.',
      'admin_not_deletable',
    );
  if (await openDeletion(deps.db, userId))
    throw AppError.conflict(privacyMessages.deletionScheduled, 'deletion_scheduled');
  // Each service says what it holds that stops a deletion (a claimed job, money owed that cannot be paid).
  const answers = await Promise.all(
    PRIVACY_SERVICES.filter((s) => s !== 'identity').map((s) => deps.privacy.blockers(s, userId)),
  );
  const blockers = answers.flat();
  if (blockers.length)
    throw AppError.conflict(
      `Your account cannot be deleted yet. ${blockers.join(' ')}`,
      'deletion_blocked',
    );
  const correlationId = getCorrelationId();
  const row = await deps.events.inTransaction(async (tx) => {
    const created = await insertDeletion(tx, {
      userId,
      dueAt: new Date(Date.now() + deps.config.DELETION_GRACE_MS),
      requestedBy: actorId ?? null,
    });
    if (!created) throw AppError.conflict(privacyMessages.deletionScheduled, 'deletion_scheduled');
    await deps.events.record(
      tx,
      createEvent(
        'UserDeletionRequested',
        userId,
        {
          userId,
          email: user.email,
          name: user.name,
          dueAt: created.dueAt.toISOString(),
          ...(actorId ? { actorId } : {}),
        },
        { correlationId },
      ),
    );
    return created;
  });
  // Signed out everywhere: signing in again is how the person says "keep my account".
  await revokeUserSessions(deps, [userId], 'account_deletion_requested');
  return row;
}

/** In the sign-in transaction: a scheduled deletion of this user is cancelled (UserDeletionCancelled). */
export async function cancelDeletionOnSignIn(
  tx: Tx,
  userId: string,
  correlationId: string | undefined,
) {
  const cancelled = await cancelScheduledDeletion(tx, userId);
  return cancelled
    ? createEvent(
        'UserDeletionCancelled',
        userId,
        { userId, reason: 'signed_in' as const },
        { correlationId },
      )
    : undefined;
}

/** Starts one due deletion: identity's own erasure and UserDeleted, in one transaction. False when none is due. */
export async function startDueDeletion(deps: IdentityDeps, now = new Date()): Promise<boolean> {
  const started = await deps.events.inTransaction(async (tx) => {
    const due = await lockDueDeletion(tx, now);
    if (!due) return undefined;
    const user = await lockUser(tx, due.userId);
    const pseudonym = randomUUID();
    const event = createEvent('UserDeleted', due.userId, {
      userId: due.userId,
      pseudonym,
      email: user?.email ?? '',
      type: user?.type ?? null,
      deletedAt: new Date().toISOString(),
    });
    await eraseIdentityUser(tx, { userId: due.userId, pseudonym });
    const exportIds = await endUserExports(tx, due.userId);
    await markDeletionErasing(tx, due.id, { pseudonym, eventId: event.id });
    await deps.events.record(tx, event);
    return { userId: due.userId, exportIds };
  });
  if (!started) return false;
  await deleteExportChunks(deps.db, started.exportIds);
  // Any access token still alive is refused from now on.
  await announceClaimsChanged(deps, [started.userId]);
  deps.logger.info({ userId: started.userId }, 'account erased in identity; UserDeleted published');
  return true;
}

/** Asks every service that has not answered yet whether it handled the deletion's UserDeleted. */
export async function checkErasures(deps: IdentityDeps): Promise<void> {
  for (const d of await listErasingDeletions(deps.db)) {
    const done = new Set(d.servicesDone);
    for (const service of PRIVACY_SERVICES) {
      if (done.has(service) || !d.eventId) continue;
      const handled = await deps.privacy.erased(service, d.eventId).catch((err: Error) => {
        deps.logger.warn(
          { service, deletionId: d.id, err: err.message },
          'could not ask a service about an erasure; asking again later',
        );
        return false;
      });
      if (handled) done.add(service);
    }
    const list = PRIVACY_SERVICES.filter((s) => done.has(s));
    const complete = list.length === PRIVACY_SERVICES.length;
    if (list.length !== d.servicesDone.length)
      await setDeletionProgress(deps.db, d.id, list, complete);
    if (complete)
      deps.logger.info(
        { userId: d.userId, deletionId: d.id },
        'account deletion completed in every service',
      );
  }
}

/** One pass of the privacy sweep: due deletions, erasure answers, expired links, exports to build. */
export async function privacySweep(deps: IdentityDeps): Promise<void> {
  while (await startDueDeletion(deps));
  await checkErasures(deps);
  await deleteExportChunks(deps.db, await expireExports(deps.db, new Date()));
  for (
    let row = await claimExport(deps.db, EXPORT_STALE_MS);
    row;
    row = await claimExport(deps.db, EXPORT_STALE_MS)
  ) {
    try {
      await buildExport(deps, row);
    } catch (err) {
      deps.logger.error(
        { exportId: row.id, err: (err as Error).message },
        'data export failed; tried again by the next sweep',
      );
      await markExportFailed(deps.db, row.id, (err as Error).message, EXPORT_MAX_ATTEMPTS);
    }
  }
}

/** Runs the sweep every PRIVACY_SWEEP_MS (state lives in the database, so a restart loses nothing). */
export function startPrivacySweep(deps: IdentityDeps): {
  stop(): Promise<void>;
  runNow(): Promise<void>;
} {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = () =>
    (running ??= privacySweep(deps)
      .catch((err: Error) => deps.logger.error({ err: err.message }, 'privacy sweep failed'))
      .finally(() => {
        running = undefined;
      }));
  const timer = setInterval(() => {
    if (!stopped) void run();
  }, deps.config.PRIVACY_SWEEP_MS);
  timer.unref();
  return {
    runNow: run,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

export type { PrivacyService };
