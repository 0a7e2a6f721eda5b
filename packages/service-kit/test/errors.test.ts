import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { AppError, createHttpApp, createLogger, listen, type RunningServer } from '../src/index.js';

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
    const tooMany = () => {
      throw new AppError('rate_limited', 'Too many requests.', {
        code: 'rate_limited',
        headers: { 'Retry-After': '30' },
      });
    };
    a.get('/limited', tooMany);
    a.post('/limited/pay', tooMany);
    // What drizzle throws when Postgres refuses a NUL byte in text (SQLSTATE 22021 as the cause).
    a.get('/db-refused', () => {
      throw Object.assign(new Error('Failed query: insert ...'), {
        cause: Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
          code: '22021',
        }),
      });
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
      [
        '/echo',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'hi\u0000there' }),
        },
      ],
      [
        '/echo',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ a: [{ b: ['ok', '\u0000'] }] }),
        },
      ],
      [
        '/echo',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ['k\u0000']: 1 }),
        },
      ],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, init as RequestInit);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        detail: 'Text may not contain NUL or invalid characters.',
        code: 'invalid_characters',
      });
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

/** A raw request (Node's fetch would set Sec-Fetch-Mode: cors itself). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; type: string; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          retryAfter: res.headers['retry-after'] as string | undefined,
          body,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a 429 for a page the browser navigated to', () => {
  const navigate = { 'sec-fetch-mode': 'navigate', accept: 'text/html' };

  it('is an HTML page with the same Retry-After and a retry link to the same address', async () => {
    const r = await raw('GET', '/limited?x=1&y=2', navigate);
    expect(r.status).toBe(429);
    expect(r.type).toMatch(/^text\/html/);
    expect(r.retryAfter).toBe('30');
    expect(r.body).toContain('href="/limited?x=1&amp;y=2"');
  });

  it('sends a form post back to the same-site page it came from, and a foreign referrer home', async () => {
    const host = new URL(server.url).host;
    const same = await raw('POST', '/limited/pay', {
      ...navigate,
      referer: `http://${host}/api/payments/local/checkout/cs_1`,
    });
    expect(same.body).toContain('href="/api/payments/local/checkout/cs_1"');
    const foreign = await raw('POST', '/limited/pay', {
      ...navigate,
      referer: 'https://evil.example/x',
    });
    expect(foreign.body).toContain('<a class="btn" href="/">');
  });

  it('stays JSON for a fetch or an API call', async () => {
    const fetches: Array<Record<string, string>> = [
      { 'sec-fetch-mode': 'cors', accept: '*/*' },
      { accept: 'application/json' },
      { accept: 'text/html', authorization: 'Bearer x' },
    ];
    for (const headers of fetches) {
      const r = await raw('GET', '/limited', headers);
      expect(r.status).toBe(429);
      expect(JSON.parse(r.body)).toEqual({ detail: 'Too many requests.', code: 'rate_limited' });
    }
  });
});
