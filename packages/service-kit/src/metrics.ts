import { Counter, Histogram, Registry, collectDefaultMetrics, Gauge } from 'prom-client';
import type { Request, RequestHandler, Response } from 'express';

/** One prom-client registry per service (several services may share a process). */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;

  constructor(
    readonly service: string,
    opts: { defaultMetrics?: boolean } = {},
  ) {
    this.registry.setDefaultLabels({ service });
    if (opts.defaultMetrics) collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
  }

  /** A counter in this service's registry. */
  counter<L extends string>(name: string, help: string, labelNames: L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** A histogram in this service's registry (buckets in the metric's unit). */
  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    buckets: number[],
  ): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /** A gauge whose value is read when Prometheus scrapes (outbox backlog, queue depth...). */
  gauge(name: string, help: string, collect: () => Promise<number> | number): Gauge {
    return new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        try {
          this.set(await collect());
        } catch {
          /* a failing probe must not break the scrape */
        }
      },
    });
  }

  /** The request counter and latency histogram of one method, route and status (looked up once). */
  private readonly series = new Map<
    string,
    { requests: Counter.Internal; duration: Histogram.Internal<'method' | 'route' | 'status'> }
  >();

  /** Counts a finished request and its latency (seconds). */
  private observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      const labels = { method, route, status: String(status) };
      this.series.set(
        key,
        (s = {
          requests: this.httpRequests.labels(labels),
          duration: this.httpDuration.labels(labels),
        }),
      );
    }
    s.requests.inc();
    s.duration.observe(seconds);
  }

  /**
   * Observes `res` when it finishes, labelled by the route that answered: `res.locals.route` when
   * a handler named it (the gateway names the route it proxied), else the express route, else
   * 'unmatched'.
   */
  track(req: Request, res: Response): void {
    // performance.now() rather than hrtime.bigint(): no BigInt per request; 'finish' is emitted once.
    const start = performance.now();
    res.on('finish', () => {
      const named = res.locals.route as string | undefined;
      const route =
        named ?? (req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched');
      this.observeRequest(req.method, route, res.statusCode, (performance.now() - start) / 1e3);
    });
  }

  handler(): RequestHandler {
    return async (_req, res) => {
      res.setHeader('Content-Type', this.registry.contentType);
      res.end(await this.registry.metrics());
    };
  }
}
