import { z } from 'zod';
import { internalClearAnswerSchema, internalClearPreviewSchema } from '@htm/contracts';
import { AppError, InternalClient, type ServiceKeyring } from '@htm/service-kit';
import type { Logger } from 'pino';

/** Jobs' preview of a clear-all: counts, money, and the fingerprint of exactly these jobs (shared with jobs in the contracts). */
export const clearPreviewSchema = internalClearPreviewSchema;
export type JobsClearPreview = z.infer<typeof clearPreviewSchema>;

/** The synchronous calls admin makes: jobs' preview of clear-all, and the clear itself. */
export interface JobsClient {
  previewClear(): Promise<JobsClearPreview>;
  /** Deletes every job and submission if they are still the ones of `fingerprint` (else 409 clear_preview_stale). */
  clearAll(
    fingerprint: string,
    actorId: string,
  ): Promise<{ jobs_deleted: number; submissions_deleted: number; refunded_jobs: number }>;
}

const clearAnswerSchema = internalClearAnswerSchema;

export function createJobsClient(opts: {
  baseUrl: string;
  keys: ServiceKeyring;
  logger: Logger;
  timeoutMs?: number;
}): JobsClient {
  const client = new InternalClient({
    baseUrl: opts.baseUrl,
    keys: opts.keys,
    timeoutMs: opts.timeoutMs ?? 30_000,
  });
  async function call<T>(
    what: string,
    schema: z.ZodType<T>,
    send: () => Promise<unknown>,
  ): Promise<T> {
    let answer: unknown;
    try {
      answer = await send();
    } catch (err) {
      // jobs' own "the jobs changed since the preview" is the admin's to read, not an outage.
      if (err instanceof AppError && err.code === 'clear_preview_stale') {
        throw AppError.conflict(
          'The jobs changed since the preview, so nothing was cleared. Please review the new counts and confirm again.',
          'clear_preview_stale',
        );
      }
      opts.logger.error({ err }, `jobs did not answer the ${what} call`);
      throw unavailable();
    }
    const parsed = schema.safeParse(answer);
    if (!parsed.success) {
      opts.logger.error({ answer }, `jobs answered the ${what} call with an unexpected body`);
      throw unavailable();
    }
    return parsed.data;
  }
  return {
    previewClear: () =>
      call('clear preview', clearPreviewSchema, () => client.get('/internal/jobs/clear-preview')),
    clearAll: (fingerprint, actorId) =>
      call('clear', clearAnswerSchema, () =>
        client.post('/internal/jobs/clear', { fingerprint, actor_id: actorId }),
      ),
  };
}

function unavailable(): AppError {
  return new AppError(
    'unavailable',
    'The jobs service is not answering, so nothing was cleared. Please try again.',
    { code: 'jobs_unavailable' },
  );
}
