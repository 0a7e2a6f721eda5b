import { getCorrelationId } from './context.js';
import { AppError, type ErrorBody } from './errors.js';
import { mintServiceToken } from './service-token.js';

export interface InternalClientOptions {
  baseUrl: string;
  from: string;
  secret: string;
  timeoutMs?: number;
}

/** Calls another service's /internal/* route with a service token and the correlation id. */
export class InternalClient {
  constructor(private readonly opts: InternalClientOptions) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const token = await mintServiceToken(this.opts.secret, this.opts.from);
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    const cid = getCorrelationId();
    if (cid) headers['x-correlation-id'] = cid;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(new URL(path, this.opts.baseUrl), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
    } catch {
      throw new AppError('unavailable', 'A service we depend on is not answering. Please try again.', {
        code: 'upstream_unavailable',
      });
    }
    const text = await res.text();
    const json = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) {
      const e = (json ?? {}) as Partial<ErrorBody>;
      const kind = res.status === 404 ? 'not_found' : res.status === 409 ? 'conflict' : res.status === 400 ? 'invalid' : res.status === 403 ? 'forbidden' : 'bad_gateway';
      throw new AppError(kind, e.detail ?? `Upstream answered ${res.status}.`, { code: e.code ?? 'upstream_error', errors: e.errors });
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
