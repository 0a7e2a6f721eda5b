import { request } from 'node:http';
import type { Logger } from 'pino';
import type { ServiceName } from './route-table.js';

/** `*_URL` of the gateway: one upstream URL or several, comma-separated (the service's replicas). */
export function parseUpstreamList(value: string): string[] {
  return value
    .split(',')
    .map((u) => u.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

export interface UpstreamPoolOptions {
  /** How often each replica's /readyz is asked (ms). */
  healthIntervalMs: number;
  logger?: Logger;
}

/**
 * The replicas of one service and which of them take new requests. Round robin over the
 * replicas whose last /readyz answered 200; a replica that refuses a connection is taken out at
 * once and comes back when its /readyz answers 200 again. A draining replica (readiness 503 after
 * SIGTERM, see SHUTDOWN_DRAIN_MS) therefore stops getting requests within one health interval,
 * while it still finishes the ones it has. With one URL nothing is polled: it always gets the request.
 */
export class UpstreamPool {
  private readonly ready: Map<string, boolean>;
  private next = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    readonly service: ServiceName,
    readonly urls: string[],
    private readonly opts: UpstreamPoolOptions,
  ) {
    if (!urls.length) throw new Error(`${service}: no upstream URL`);
    // Unknown until the first check: assumed ready, so a gateway starting with its services serves at once.
    this.ready = new Map(urls.map((u) => [u, true]));
  }

  get size(): number {
    return this.urls.length;
  }

  /** The next replica to send a request to, skipping `tried`; undefined when every replica was tried. */
  pick(tried?: ReadonlySet<string>): string | undefined {
    if (this.urls.length === 1) return tried?.has(this.urls[0]) ? undefined : this.urls[0];
    const candidates = this.urls.filter((u) => !tried?.has(u));
    if (!candidates.length) return undefined;
    const ready = candidates.filter((u) => this.ready.get(u));
    // None ready (all restarting at once, or the checks are behind): try them anyway rather than refuse.
    const from = ready.length ? ready : candidates;
    const url = from[this.next++ % from.length];
    if (this.next > 1e9) this.next = 0;
    return url;
  }

  /** A connection to `url` was refused: no new requests until its /readyz answers 200 again. */
  markDown(url: string): void {
    if (this.ready.get(url))
      this.opts.logger?.warn(
        { service: this.service, upstream: url },
        'upstream refused a connection; taken out of rotation',
      );
    this.ready.set(url, false);
  }

  isReady(url: string): boolean {
    return this.ready.get(url) ?? false;
  }

  start(): void {
    if (this.urls.length < 2 || this.timer) return;
    const tick = () => {
      void Promise.all(this.urls.map((u) => this.check(u))).finally(() => {
        if (this.timer) this.timer = setTimeout(tick, this.opts.healthIntervalMs).unref();
      });
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async check(url: string): Promise<void> {
    const answer = await readyz(url, Math.max(500, this.opts.healthIntervalMs * 2));
    // A slow answer says nothing (a busy replica is still serving): keep what was known.
    if (answer === 'timeout') return;
    const ok = answer === 200;
    const was = this.ready.get(url);
    this.ready.set(url, ok);
    if (was !== ok)
      this.opts.logger?.info(
        { service: this.service, upstream: url, ready: ok },
        ok ? 'upstream ready' : 'upstream not ready; out of rotation',
      );
  }
}

/** GET <url>/readyz on a fresh connection (a pooled one could be a draining server's last socket): its status, 0 when refused. */
function readyz(url: string, timeoutMs: number): Promise<number | 'timeout'> {
  return new Promise((resolve) => {
    let timedOut = false;
    const req = request(
      `${url}/readyz`,
      { method: 'GET', agent: false, timeout: timeoutMs },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    });
    req.on('error', () => resolve(timedOut ? 'timeout' : 0));
    req.end();
  });
}
