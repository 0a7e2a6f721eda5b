/**
 * Tracing switched by the environment: off without OTEL_EXPORTER_OTLP_ENDPOINT (nothing added to
 * requests or events), on with it (spans of a request reach an OTLP/HTTP collector, here a
 * plain HTTP server recording what it is sent).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createHttpApp,
  createLogger,
  currentTraceparent,
  flushTracing,
  injectTraceHeaders,
  listen,
  startTracingFromEnv,
  tracingEnabled,
  type RunningServer,
  type TracingHandle,
} from '../src/index.js';

const servers: RunningServer[] = [];
let tracing: TracingHandle | undefined;
afterAll(async () => {
  for (const s of servers) await s.close();
  await tracing?.shutdown();
});

/** An app whose /echo answers the traceparent its handler would hand on to an outgoing call. */
async function serve() {
  const app = createHttpApp({ service: 'probe', logger: createLogger('probe', 'silent') }, (a) => {
    a.get('/echo', (_req, res) => {
      res.json({ outgoing: injectTraceHeaders({}) });
    });
  });
  const server = await listen(app);
  servers.push(server);
  return server.url;
}

describe('tracing from the environment', () => {
  it('stays off without OTEL_EXPORTER_OTLP_ENDPOINT: no tracer, no traceparent handed on', async () => {
    expect(await startTracingFromEnv('probe', {})).toBeUndefined();
    expect(tracingEnabled()).toBe(false);
    const url = await serve();
    const res = await fetch(`${url}/echo`, {
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    expect(await res.json()).toEqual({ outgoing: {} });
    expect(currentTraceparent()).toBeUndefined();
  });

  it('sends the spans of a request to the OTLP endpoint when it is set', async () => {
    const received: Array<{ path: string; body: string }> = [];
    const collector = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    servers.push({
      close: () => new Promise<void>((r) => collector.close(() => r())),
    } as RunningServer);
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

    tracing = await startTracingFromEnv('probe', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    expect(tracingEnabled()).toBe(true);
    const url = await serve();
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${url}/echo`, {
      headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
    });
    const { outgoing } = (await res.json()) as { outgoing: { traceparent?: string } };
    // The handler hands on the caller's trace, under this request's own span.
    expect(outgoing.traceparent).toMatch(
      new RegExp(`^00-${callerTrace}-(?!00f067aa0ba902b7)[0-9a-f]{16}-01$`),
    );

    await flushTracing();
    expect(received.map((r) => r.path)).toContain('/v1/traces');
    const sent = received.map((r) => r.body).join('\n');
    expect(sent).toContain('"GET /echo"');
    expect(sent).toContain('"probe"');
    expect(sent).toContain(outgoing.traceparent!.split('-')[2]);
  });
});
