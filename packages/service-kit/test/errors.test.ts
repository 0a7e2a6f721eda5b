import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHttpApp, createLogger, listen, type RunningServer } from '../src/index.js';

let server: RunningServer;
const seen: unknown[] = [];
beforeAll(async () => {
  const logger = createLogger('t', 'silent');
  const app = createHttpApp({ service: 't', logger }, (a) => {
    a.post('/echo', (req, res) => {
      seen.push(req.body);
      res.json({ ok: true });
    });
    a.get('/search', (req, res) => {
      seen.push(req.query);
      res.json({ ok: true });
    });
    // What drizzle throws when Postgres refuses a NUL byte in text (SQLSTATE 22021 as the cause).
    a.get('/db-refused', () => {
      throw Object.assign(new Error('Failed query: insert ...'), { cause: Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }) });
    });
  });
  server = await listen(app);
});
afterAll(async () => {
  await server?.close();
});

describe('text Postgres cannot store', () => {
  it('refuses a NUL character in the query or anywhere in a JSON body with 400, before the handler', async () => {
    for (const [path, init] of [
      ['/search?q=%00', {}],
      ['/search?q=a%00b&page=1', {}],
      ['/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hi\u0000there' }) }],
      ['/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: [{ b: ['ok', '\u0000'] }] }) }],
      ['/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ['k\u0000']: 1 }) }],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, init as RequestInit);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: 'Text may not contain NUL or invalid characters.', code: 'invalid_characters' });
    }
    expect(seen).toEqual([]);
    expect((await fetch(`${server.url}/search?q=caf%C3%A9`)).status).toBe(200);
  });

  it('answers a Postgres "invalid byte sequence" refusal as 400, not 500', async () => {
    const res = await fetch(`${server.url}/db-refused`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_characters' });
  });
});
