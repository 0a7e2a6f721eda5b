/**
 * One stable address for a service's replicas, for the calls services make to each other
 * (jobs → payments checkout, admin → jobs, every service → identity's JWKS): what a Kubernetes
 * Service does in the manifests. A TCP round robin over the replicas whose /readyz answers 200;
 * a replica that refuses the connection is skipped (nothing was sent to it yet, so trying the
 * next one is always safe). Only for `npm run start:cluster` and its tests.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { request } from 'node:http';

export interface Backend {
  host: string;
  port: number;
}

export class ServiceAddress {
  private server?: Server;
  private readonly ready = new Map<string, boolean>();
  private next = 0;
  private timer?: NodeJS.Timeout;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    readonly name: string,
    readonly backends: Backend[],
    private readonly healthIntervalMs = 250,
  ) {
    for (const b of backends) this.ready.set(key(b), false);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async listen(port = 0): Promise<string> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as { port: number }).port;
    const tick = () => {
      void Promise.all(
        this.backends.map(async (b) => {
          const ok = await readyz(b);
          if (ok !== undefined) this.ready.set(key(b), ok); // a slow answer changes nothing
        }),
      ).finally(() => {
        if (this.server?.listening) this.timer = setTimeout(tick, this.healthIntervalMs).unref();
      });
    };
    tick();
    return this.url;
  }

  private order(): Backend[] {
    const ready = this.backends.filter((b) => this.ready.get(key(b)));
    const rest = this.backends.filter((b) => !this.ready.get(key(b)));
    const start = this.next++ % Math.max(1, ready.length);
    return [...ready.slice(start), ...ready.slice(0, start), ...rest];
  }

  private accept(client: Socket): void {
    client.pause();
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    const candidates = this.order();
    const attempt = (i: number) => {
      const b = candidates[i];
      if (!b) {
        client.destroy();
        return;
      }
      const upstream = createConnection({ host: b.host, port: b.port });
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        this.sockets.add(upstream);
        upstream.on('close', () => {
          this.sockets.delete(upstream);
          client.destroy();
        });
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      upstream.on('error', () => {
        if (!connected) {
          this.ready.set(key(b), false);
          attempt(i + 1);
        } else client.destroy();
      });
    };
    attempt(0);
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    const s = this.server;
    this.server = undefined;
    for (const sock of this.sockets) sock.destroy();
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}

const key = (b: Backend) => `${b.host}:${b.port}`;

/** true: /readyz answered 200; false: another status or refused; undefined: no answer in time. */
function readyz(b: Backend): Promise<boolean | undefined> {
  return new Promise((resolve) => {
    let timedOut = false;
    const req = request(
      { host: b.host, port: b.port, path: '/readyz', agent: false, timeout: 1000 },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    req.on('timeout', () => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    });
    req.on('error', () => resolve(timedOut ? undefined : false));
    req.end();
  });
}
