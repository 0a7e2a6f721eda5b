/** SIGTERM's first step (runMain): readiness drops while the service keeps serving, without keep-alive. */
import { afterAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import {
  createHttpApp,
  createLogger,
  listen,
  shutdownDrainMs,
  startDraining,
  type RunningServer,
} from '../src/index.js';

let server: RunningServer;
afterAll(async () => {
  await server?.close();
});

/** GET on a fresh connection, with the Connection header the server answered. */
function get(
  url: string,
): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'keep-alive' } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('draining', () => {
  it('answers /readyz 503 "draining" and closes each connection after its answer, while still serving requests', async () => {
    const app = createHttpApp(
      {
        service: 't',
        logger: createLogger('t', 'silent'),
        readiness: { database: async () => undefined },
      },
      (a) => {
        a.get('/work', (_req, res) => {
          res.json({ done: true });
        });
      },
    );
    server = await listen(app);
    expect((await get(`${server.url}/readyz`)).status).toBe(200);
    expect((await get(`${server.url}/work`)).connection).toBe('keep-alive');

    startDraining();
    const ready = await get(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'draining', service: 't' });
    const work = await get(`${server.url}/work`);
    expect(work.status).toBe(200);
    expect(JSON.parse(work.body)).toEqual({ done: true });
    expect(work.connection).toBe('close');
  });

  it('reads SHUTDOWN_DRAIN_MS (0 by default) and refuses what the shutdown timeout could not hold', () => {
    expect(shutdownDrainMs({})).toBe(0);
    expect(shutdownDrainMs({ SHUTDOWN_DRAIN_MS: '1500' })).toBe(1500);
    expect(() => shutdownDrainMs({ SHUTDOWN_DRAIN_MS: '20000' })).toThrow('SHUTDOWN_DRAIN_MS');
    expect(() => shutdownDrainMs({ SHUTDOWN_DRAIN_MS: 'soon' })).toThrow('SHUTDOWN_DRAIN_MS');
  });
});
