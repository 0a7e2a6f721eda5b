import { createEvent, type EventEnvelope } from '@htm/events';
import type { PrivacyAnswers } from '@htm/service-kit';
import type { Tx } from '@htm/service-kit/db';
import type { JobsDeps } from '../deps.js';
import {
  eraseJobsUser,
  listHeldJobs,
  listUserFiles,
  readJobsPart,
} from '../db/privacy.repository.js';
import { SESSION_CHECK_REASONS } from '@htm/contracts/marketplace';
import { lockedForPoster, withoutLockedParts } from './review/read-submission.js';

type ExportedLink = Awaited<ReturnType<typeof readJobsPart>>['share_links'][number];

/**
 * A share link as "Download my data" lists it: what it shares in words (one tester's report, or
 * every report of a pack), whether it still opens (live, expired, revoked), and its dates.
 */
export function shareLinkEntry(l: ExportedLink, now = new Date()) {
  const title = l.title ?? '(deleted)';
  const label =
    l.scope === 'pack'
      ? `Share link for pack '${title}' (all ${l.testers} testers' reports)`
      : `Share link for the report on '${title}' (one tester's report)`;
  const status = l.revokedAt ? 'revoked' : l.expiresAt <= now ? 'expired' : 'live';
  const state =
    status === 'revoked'
      ? `Revoked on ${l.revokedAt!.toISOString().slice(0, 10)}: it no longer opens the report.`
      : status === 'expired'
        ? `Expired on ${l.expiresAt.toISOString().slice(0, 10)}: it no longer opens the report.`
        : `Anyone with the link can read it until ${l.expiresAt.toISOString().slice(0, 10)}.`;
  return {
    label,
    status,
    state,
    scope: l.scope,
    ...(l.scope === 'pack' ? { packId: l.jobId } : { jobId: l.jobId }),
    createdAt: l.createdAt,
    expiresAt: l.expiresAt,
    revokedAt: l.revokedAt,
  };
}

/** The jobs service's answers to identity's /internal/privacy calls ("Your data, your call"). */
export function jobsPrivacyAnswers(deps: JobsDeps): PrivacyAnswers {
  return {
    part: async (userId) => {
      const part = await readJobsPart(deps.db, userId);
      // The reports on the poster's jobs as the submission view shows them to the poster: locked
      // until accepted (no checklist answers, general feedback or files before).
      const data = {
        ...part,
        reports_received: part.reports_received.map((r) => {
          const locked = lockedForPoster(r);
          return { ...withoutLockedParts(r, locked), locked };
        }),
        share_links: part.share_links.map((l) => shareLinkEntry(l)),
        // Each reason of a check in the words the tester reads on their dashboard.
        session_checks: part.session_checks.map((c) => ({
          ...c,
          reasons: (c.reasons ?? []).map((code) => ({
            code,
            text: SESSION_CHECK_REASONS[code].tester,
          })),
        })),
      };
      const own = await listUserFiles(deps.db, userId);
      return {
        data,
        files: [
          ...own.files.map((f) => ({
            id: `file-${f.id}`,
            name: f.originalName ?? `${f.id}.${f.ext}`,
            size: f.size,
          })),
          ...own.recordings.map((r) => ({
            id: `rec-${r.id}`,
            name: `recording-${r.id}.${r.mimeType?.includes('mp4') ? 'mp4' : 'webm'}`,
            size: r.sizeBytes ?? null,
          })),
        ],
      };
    },
    file: async (userId, fileId) => {
      const own = await listUserFiles(deps.db, userId);
      if (fileId.startsWith('file-')) {
        const f = own.files.find((x) => `file-${x.id}` === fileId);
        if (!f) return undefined;
        return {
          stream: (await deps.storage.get(f.storageKey)).stream,
          contentType: f.contentType,
        };
      }
      const r = own.recordings.find((x) => `rec-${x.id}` === fileId);
      if (!r) return undefined;
      return {
        stream: await (await deps.recordingStore).stream(r.id),
        contentType: r.mimeType ?? 'video/webm',
      };
    },
    blockers: async (userId) =>
      (await listHeldJobs(deps.db, userId)).map(
        (j) =>
          `You are testing "${j.title}": submit your work for it (or let it be released) first.`,
      ),
    handled: (eventId) => deps.events.handled(eventId),
  };
}

/**
 * UserDeleted: the rows in this transaction (once per event id: a redelivery finds it handled),
 * the stored bytes of the user's uploads and recordings (deleting a missing one is harmless), and
 * JobsWithdrawn for the poster's paid jobs nobody started, which payments refunds.
 */
export async function eraseUserInJobs(
  deps: Pick<JobsDeps, 'events' | 'storage' | 'recordingStore' | 'logger'>,
  e: EventEnvelope<'UserDeleted'>,
  tx: Tx,
): Promise<void> {
  const { userId, pseudonym } = e.data;
  const erased = await eraseJobsUser(tx, e.data);
  if (erased.refundJobIds.length) {
    await deps.events.record(
      tx,
      createEvent(
        'JobsWithdrawn',
        pseudonym,
        { posterId: pseudonym, refundJobIds: erased.refundJobIds, reason: 'account_deleted' },
        { correlationId: e.correlationId ?? undefined },
      ),
    );
  }
  for (const key of erased.fileKeys) await deps.storage.delete(key);
  const recordings = await deps.recordingStore;
  for (const id of erased.recordingIds)
    await recordings
      .remove(id)
      .catch((err: Error) =>
        deps.logger.warn({ id, err: err.message }, 'recording of an erased user already gone'),
      );
  deps.logger.info(
    {
      userId,
      files: erased.fileKeys.length,
      recordings: erased.recordingIds.length,
      withdrawnJobs: erased.refundJobIds.length,
    },
    'user erased in jobs',
  );
}
