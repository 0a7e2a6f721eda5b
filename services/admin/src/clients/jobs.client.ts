import { z } from 'zod';
import { AppError, InternalClient, type ServiceKeyring } from '@htm/service-kit';
import type { Logger } from 'pino';

/** Jobs' preview of a clear-all: counts, money, and the fingerprint of exactly these jobs. */
export const clearPreviewSchema = z.object({
  jobs_total: z.number().int().min(0),
  jobs_by_status: z.record(z.string(), z.number().int().min(0)),
  submissions: z.number().int().min(0),
  paid_unfinished: z.number().int().min(0),
  paid_unfinished_cents: z.number().int().min(0),
  paid_completed: z.number().int().min(0),
  paid_completed_cents: z.number().int().min(0),
  unpaid: z.number().int().min(0),
  fingerprint: z.string().min(1),
});
export type JobsClearPreview = z.infer<typeof clearPreviewSchema>;

/** The synchronous calls admin makes: jobs' preview of clear-all, and the clear itself. */
export interface JobsClient {
  previewClear(): Promise<JobsClearPreview>;
  /** Deletes every job and submission if they are still the ones of `fingerprint` (else 409 clear_preview_stale). */
  clearAll(fingerprint: string, actorId: string): Promise<{ jobs_deleted: number; submissions_deleted: number; refunded_jobs: number }>;
}

const clearAnswerSchema = z.object({
  jobs_deleted: z.number().int().min(0),
  submissions_deleted: z.number().int().min(0),
  refunded_jobs: z.number().int().min(0).default(0),
});

export function createJobsClient(opts: { baseUrl: string; keys: ServiceKeyring; logger: Logger; timeoutMs?: number }): JobsClient {
  const client = new InternalClient({ baseUrl: opts.baseUrl, keys: opts.keys, timeoutMs: opts.timeoutMs ?? 30_000 });
  async function call<T>(what: string, schema: z.ZodType<T>, send: () => Promise<unknown>): Promise<T> {
    let answer: unknown;
    try {
      answer = await send();
    } catch (err) {
      // jobs' own "the jobs changed since the preview" is the admin's to read, not an outage.
      if (err instanceof AppError && err.code === 'clear_preview_stale') {
        throw AppError.conflict('The jobs changed since the preview, so nothing was cleared. Please review the new counts and confirm again.', 'clear_preview_stale');
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
    previewClear: () => call('clear preview', clearPreviewSchema, () => client.get('/internal/jobs/clear-preview')),
    clearAll: (fingerprint, actorId) => call('clear', clearAnswerSchema, () => client.post('/internal/jobs/clear', { fingerprint, actor_id: actorId })),
  };
}

function unavailable(): AppError {
  return new AppError('unavailable', 'The jobs service is not answering, so nothing was cleared. Please try again.', { code: 'jobs_unavailable' });
}
