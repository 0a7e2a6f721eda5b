import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { z } from 'zod';
import {
  privacyBlockersSchema,
  privacyPartSchema,
  type PrivacyPart,
  type PrivacyService,
} from '@htm/contracts';
import { AppError, InternalClient, type ServiceKeyring } from '@htm/service-kit';

/**
 * identity's calls to every other service's /internal/privacy routes: each service answers for the
 * data it owns (its part of an export, what blocks a deletion, whether it handled a UserDeleted).
 */
export interface PrivacyClient {
  part(service: PrivacyService, userId: string, email: string): Promise<PrivacyPart>;
  /** A file of the user's part (jobs: uploads and recordings), as a stream. */
  file(service: PrivacyService, userId: string, fileId: string): Promise<Readable>;
  blockers(service: PrivacyService, userId: string): Promise<string[]>;
  erased(service: PrivacyService, eventId: string): Promise<boolean>;
}

const erasedSchema = z.object({ handled: z.boolean() });

export function createPrivacyClient(opts: {
  urls: Record<Exclude<PrivacyService, 'identity'>, string>;
  keys: ServiceKeyring;
  timeoutMs?: number;
}): PrivacyClient {
  const clients = new Map<string, InternalClient>();
  const clientOf = (service: PrivacyService) => {
    if (service === 'identity') throw new Error('identity answers for itself');
    let c = clients.get(service);
    if (!c)
      clients.set(
        service,
        (c = new InternalClient({
          baseUrl: opts.urls[service],
          keys: opts.keys,
          timeoutMs: opts.timeoutMs ?? 30_000,
          retryConnectionErrors: true,
        })),
      );
    return c;
  };
  const parse = <T>(service: string, schema: z.ZodType<T>, answer: unknown): T => {
    const r = schema.safeParse(answer);
    if (!r.success)
      throw new AppError(
        'bad_gateway',
        `The ${service} service answered a privacy call with an unexpected body.`,
        { code: 'upstream_error' },
      );
    return r.data;
  };
  return {
    part: async (service, userId, email) =>
      parse(
        service,
        privacyPartSchema,
        await clientOf(service).get(
          `/internal/privacy/users/${encodeURIComponent(userId)}/export?email=${encodeURIComponent(email)}`,
        ),
      ),
    file: async (service, userId, fileId) => {
      if (service === 'identity') throw new Error('identity stores no files');
      const res = await fetch(
        new URL(
          `/internal/privacy/users/${encodeURIComponent(userId)}/files/${encodeURIComponent(fileId)}`,
          opts.urls[service],
        ),
        {
          headers: { authorization: `Bearer ${await opts.keys.mint()}` },
          signal: AbortSignal.timeout(10 * 60_000),
        },
      );
      if (!res.ok || !res.body)
        throw new AppError(
          'bad_gateway',
          `The ${service} service did not send file ${fileId} (${res.status}).`,
          { code: 'upstream_error' },
        );
      return Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
    },
    blockers: async (service, userId) =>
      parse(
        service,
        privacyBlockersSchema,
        await clientOf(service).get(
          `/internal/privacy/users/${encodeURIComponent(userId)}/blockers`,
        ),
      ).blockers,
    erased: async (service, eventId) =>
      parse(
        service,
        erasedSchema,
        await clientOf(service).get(`/internal/privacy/erasures/${encodeURIComponent(eventId)}`),
      ).handled,
  };
}
