import { z } from 'zod';
import { AppError, InternalClient, type ServiceKeyring } from '@htm/service-kit';
import type { Logger } from 'pino';

/** The one synchronous call admin makes: asking jobs to delete every job and submission. */
export interface JobsClient {
  clearAll(): Promise<{ jobs_deleted: number; submissions_deleted: number }>;
}

const clearAnswerSchema = z.object({
  jobs_deleted: z.number().int().min(0),
  submissions_deleted: z.number().int().min(0),
});

export function createJobsClient(opts: { baseUrl: string; keys: ServiceKeyring; logger: Logger; timeoutMs?: number }): JobsClient {
  const client = new InternalClient({ baseUrl: opts.baseUrl, keys: opts.keys, timeoutMs: opts.timeoutMs ?? 30_000 });
  return {
    async clearAll() {
      let answer: unknown;
      try {
        answer = await client.post('/internal/jobs/clear', {});
      } catch (err) {
        opts.logger.error({ err }, 'jobs did not clear jobs');
        throw unavailable();
      }
      const parsed = clearAnswerSchema.safeParse(answer);
      if (!parsed.success) {
        opts.logger.error({ answer }, 'jobs answered the clear call with an unexpected body');
        throw unavailable();
      }
      return parsed.data;
    },
  };
}

function unavailable(): AppError {
  return new AppError('unavailable', 'The jobs service is not answering, so nothing was cleared. Please try again.', { code: 'jobs_unavailable' });
}
