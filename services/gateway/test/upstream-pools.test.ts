import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request, type ClientRequest, type Server } from 'node:http';
import { createTestIssuer, type TestIssuer } from '@htm/service-kit/testing';
import type { RunningGateway } from '../src/main.js';
import { startGatewayInFrontOf } from './helpers.js';

/**
 * The gateway's connections to a service: API calls share at most 64 kept-alive connections per
 * replica (a burst waits in the gateway rather than opening hundreds of new connections), and
 * nothing a slow client does can occupy them: a JSON body is read whole before a connection is
 * taken, and uploads and downloads use connections of their own.
 */
const POOL = 64;

let issuer: TestIssuer;
let gw: RunningGateway;
let upstream: Server;
let token: string;
let open = 0;
let maxOpen = 0;
const seen: string[] = [];

beforeAll(async () => {
  issuer = await createTestIssuer();
  token = await issuer.mint({ type: 'tester' });
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url !== '/readyz') seen.push(`${req.method} ${req.url}`);
      setTimeout(
        () => {
          res.setHeader('content-type', 'application/json');
          res.end('{"jobs":[]}');
        },
        req.url?.includes('slow') ? 200 : 0,
      );
    });
  });
  upstream.on('connection', (socket) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    socket.on('close', () => open--);
  });
  upstream.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  gw = await startGatewayInFrontOf(url, issuer, 'gwpool');
});
afterAll(async () => {
  await gw?.stop();
  upstream?.closeAllConnections();
  upstream?.close();
  await issuer?.close();
});

/** A call through the gateway on its own connection; `body` is sent whole, or `stall` sends a part of it and stops. */
function call(
  method: string,
  path: string,
  opts: { body?: string; stall?: { contentType: string; declared: number } } = {},
): { req: ClientRequest; done: Promise<number> } {
  const u = new URL(path, gw.url);
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (opts.body !== undefined)
    Object.assign(headers, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(opts.body)),
    });
  if (opts.stall)
    Object.assign(headers, {
      'content-type': opts.stall.contentType,
      'content-length': String(opts.stall.declared),
    });
  let req!: ClientRequest;
  const done = new Promise<number>((resolve, reject) => {
    req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent: false,
        headers,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
  });
  if (opts.stall)
    req.write('x'.repeat(10)); // ...and the rest never comes
  else req.end(opts.body);
  return { req, done };
}

describe("the gateway's connections to a service", () => {
  it('serves 300 API calls at once over at most 64 connections, every one answered', async () => {
    maxOpen = 0;
    const statuses = await Promise.all(
      Array.from(
        { length: 300 },
        (_, i) =>
          (i % 2
            ? call('GET', `/api/jobs?slow=${i}`)
            : call('POST', `/api/jobs/slow-${i}/claim`, { body: '{}' })
          ).done,
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(300);
    expect(maxOpen).toBeGreaterThan(1);
    expect(maxOpen).toBeLessThanOrEqual(POOL + 1); // + the readiness probe's
  }, 30_000);

  it('keeps answering API calls while 70 JSON bodies and 70 uploads trickle in and stop', async () => {
    const stalled = [
      ...Array.from({ length: 70 }, (_, i) =>
        call('POST', `/api/jobs/stalled-json-${i}/claim`, {
          stall: { contentType: 'application/json', declared: 5000 },
        }),
      ),
      ...Array.from({ length: 70 }, (_, i) =>
        call('POST', `/api/jobs/stalled-upload-${i}/submit-work`, {
          stall: { contentType: 'multipart/form-data; boundary=x', declared: 50_000 },
        }),
      ),
    ];
    let settled = 0;
    for (const s of stalled)
      s.done.then(
        () => settled++,
        () => settled++,
      );
    await new Promise((r) => setTimeout(r, 300));
    // The uploads stream to the service as they arrive; the JSON bodies wait in the gateway.
    expect(seen.some((s) => s.includes('stalled-json'))).toBe(false);
    const before = seen.length;
    const quick = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call('GET', `/api/jobs?quick=${i}`).done),
    );
    expect(quick).toEqual(Array(20).fill(200));
    // Answered while every stalled request still waits (not after they timed out and freed connections).
    expect(settled).toBe(0);
    expect(seen.slice(before).filter((s) => s.startsWith('GET /api/jobs?quick='))).toHaveLength(20);
    for (const s of stalled) s.req.destroy();
  }, 30_000);
});
