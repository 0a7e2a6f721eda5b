import { getCorrelationId } from './context.js';
import { AppError, type ErrorBody } from './errors.js';
import type { ServiceKeyring } from './service-token.js';
import { injectTraceHeaders } from './tracing.js';

export interface InternalClientOptions {
  baseUrl: string;
  /** This service's keyring: it signs the service token with its own key. */
  keys: ServiceKeyring;
  timeoutMs?: number;
  /**
   * Send the request once more when the connection failed before an answer (refused, or a
   * kept-alive connection the other side closed as it was reused: a replica stopping). Only for
   * routes where a repeat does nothing twice (idempotent by their body).
   */
  retryConnectionErrors?: boolean;
}

/** Calls another service's /internal/* route with a service token and the correlation id. */
export class InternalClient {
  constructor(private readonly opts: InternalClientOptions) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const token = await this.opts.keys.mint();
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    const cid = getCorrelationId();
    if (cid) headers['x-correlation-id'] = cid;
    if (body !== undefined) headers['content-type'] = 'application/json';
    injectTraceHeaders(headers);
    const send = () =>
      fetch(new URL(path, this.opts.baseUrl), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
    let res: Response;
    try {
      res = await send().catch(async (err: unknown) => {
        const timedOut =
          err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        if (!this.opts.retryConnectionErrors || timedOut) throw err;
        return send();
      });
    } catch {
      throw new AppError(
        'unavailable',
        'A service we depend on is not answering. Please try again.',
        {
          code: 'upstream_unavailable',
        },
      );
    }
    const text = await res.text();
    const json = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) {
      const e = (json ?? {}) as Partial<ErrorBody>;
      const kind =
        res.status === 404
          ? 'not_found'
          : res.status === 409
            ? 'conflict'
            : res.status === 400
              ? 'invalid'
              : res.status === 403
                ? 'forbidden'
                : 'bad_gateway';
      throw new AppError(kind, e.detail ?? `Upstream answered ${res.status}.`, {
        code: e.code ?? 'upstream_error',
        errors: e.errors,
      });
    }
    return json as T;
  }
  get<T>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T>(path: string, body?: unknown) {
    return this.request<T>('POST', path, body ?? {});
  }
}
