import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express, { type RequestHandler } from 'express';
import {
  createHttpApp,
  createLogger,
  getCorrelationId,
  listen,
  Metrics,
  series,
  type RunningServer,
} from '../src/index.js';

const servers: RunningServer[] = [];

/** The value of a Prometheus sample with these labels (in any order), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith(`${name}{`) &&
        Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A service app whose /whoami answers the correlation id its handler sees (from the async context). */
async function serve(opts: { correlationContext?: boolean } = {}) {
  const metrics = new Metrics('t');
  const app = createHttpApp(
    { service: 't', logger: createLogger('t', 'silent'), metrics, ...opts },
    (a) => {
      a.get('/whoami', async (_req, res) => {
        await new Promise((r) => setTimeout(r, 5));
        res.json({ correlationId: getCorrelationId() ?? null });
      });
    },
  );
  const server = await listen(app);
  servers.push(server);
  return { url: server.url, metrics };
}

describe('the service prelude (correlation id and metrics)', () => {
  let svc: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    svc = await serve();
  });

  it("answers with the caller's correlation id and carries it through the handler's async work", async () => {
    const res = await fetch(`${svc.url}/whoami`, { headers: { 'x-correlation-id': 'abc-123' } });
    expect(res.headers.get('x-correlation-id')).toBe('abc-123');
    expect(await res.json()).toEqual({ correlationId: 'abc-123' });
    // A harmful id is replaced by a fresh one, used the same way.
    const bad = await fetch(`${svc.url}/whoami`, {
      headers: { 'x-correlation-id': 'a b<script>' },
    });
    const fresh = bad.headers.get('x-correlation-id')!;
    expect(fresh).toMatch(/^[0-9a-f-]{36}$/);
    expect(await bad.json()).toEqual({ correlationId: fresh });
  });

  it('counts each request by route and status, and unknown paths as unmatched', async () => {
    const read = async () => (await fetch(`${svc.url}/metrics`)).text();
    const before = await read();
    for (let i = 0; i < 3; i++) await fetch(`${svc.url}/whoami`);
    await fetch(`${svc.url}/nowhere`);
    const after = await read();
    const whoami = { method: 'GET', route: '/whoami', status: '200' };
    expect(
      sample(after, 'http_requests_total', whoami) - sample(before, 'http_requests_total', whoami),
    ).toBe(3);
    expect(
      sample(after, 'http_request_duration_seconds_count', whoami) -
        sample(before, 'http_request_duration_seconds_count', whoami),
    ).toBe(3);
    expect(
      sample(after, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(1);
  });

  it('without the async context (the gateway) still answers and forwards the id, but handlers do not see it', async () => {
    const gw = await serve({ correlationContext: false });
    const res = await fetch(`${gw.url}/whoami`, { headers: { 'x-correlation-id': 'gw-1' } });
    expect(res.headers.get('x-correlation-id')).toBe('gw-1');
    expect(await res.json()).toEqual({ correlationId: null });
  });
});

describe('series', () => {
  const step =
    (name: string, trail: string[], fail?: unknown): RequestHandler =>
    (_req, _res, next) => {
      trail.push(name);
      next(fail);
    };

  async function run(...handlers: RequestHandler[]) {
    const app = express();
    app.get('/', series(...handlers), (_req, res) => {
      res.json({ reached: true });
    });
    app.use(((err, _req, res, _next) => {
      res.status(500).json({ error: String((err as Error).message ?? err) });
    }) as express.ErrorRequestHandler);
    const server = await listen(app);
    servers.push(server);
    const res = await fetch(server.url);
    return { status: res.status, body: await res.json() };
  }

  it('runs the middlewares in order, then the next layer', async () => {
    const trail: string[] = [];
    expect(await run(step('a', trail), step('b', trail), step('c', trail))).toEqual({
      status: 200,
      body: { reached: true },
    });
    expect(trail).toEqual(['a', 'b', 'c']);
  });

  it('stops at the first error, thrown, passed on or rejected, and hands it to the error handler', async () => {
    const trail: string[] = [];
    expect(
      await run(step('a', trail), step('b', trail, new Error('passed')), step('c', trail)),
    ).toEqual({ status: 500, body: { error: 'passed' } });
    expect(trail).toEqual(['a', 'b']);
    const thrown: RequestHandler = () => {
      throw new Error('thrown');
    };
    expect(await run(thrown, step('never', trail))).toEqual({
      status: 500,
      body: { error: 'thrown' },
    });
    const rejected: RequestHandler = async () => {
      throw new Error('rejected');
    };
    expect(await run(rejected, step('never', trail))).toEqual({
      status: 500,
      body: { error: 'rejected' },
    });
    expect(trail).toEqual(['a', 'b']);
  });
});
