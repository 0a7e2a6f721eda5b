import '../test/setup';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mockFetch, resetStorage } from '../test/setup';
import { AUTH_EXPIRED_EVENT, newIdempotencyKey, requestWithReauth, xsrfToken } from './base-query';
import { flushTelemetry, pendingTelemetry, resetTelemetry, track } from './telemetry';
import { getToken, setToken } from './tokens';

const bearer = (h: Record<string, string>) => h.Authorization?.replace('Bearer ', '') ?? null;
const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('base query with reauth', () => {
  let expired = 0;
  const onExpired = () => expired++;
  beforeEach(() => {
    resetStorage();
    resetTelemetry();
    expired = 0;
    window.addEventListener(AUTH_EXPIRED_EVENT, onExpired);
  });
  afterEach(() => window.removeEventListener(AUTH_EXPIRED_EVENT, onExpired));

  it('adds correlation id, XSRF header and bearer token, under /api with credentials', async () => {
    setToken('tok-1');
    document.cookie = 'XSRF-TOKEN=xsrf-abc; path=/';
    const { calls, fn } = mockFetch(() => ({ body: { ok: true } }));
    const res = await requestWithReauth({ url: '/me' });
    expect(res.data).toEqual({ ok: true });
    expect(calls[0].url).toBe('/api/me');
    expect(calls[0].headers.Authorization).toBe('Bearer tok-1');
    expect(calls[0].headers['X-XSRF-TOKEN']).toBe('xsrf-abc');
    expect(calls[0].headers['X-Correlation-Id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((fn.mock.calls[0][1] as RequestInit).credentials).toBe('include');
  });

  it('echoes the __Secure-XSRF-TOKEN cookie over https and XSRF-TOKEN over http, in the same X-XSRF-TOKEN header', () => {
    expect(xsrfToken('a=1; __Secure-XSRF-TOKEN=secure-1')).toBe('secure-1');
    expect(xsrfToken('XSRF-TOKEN=plain-1; __Secure-XSRF-TOKEN=secure-1')).toBe('secure-1');
    expect(xsrfToken('XSRF-TOKEN=plain-1')).toBe('plain-1');
    expect(xsrfToken('NOT-XSRF-TOKEN=x')).toBeNull();
  });

  it('sends telemetry with an X-Correlation-Id too', async () => {
    const { calls } = mockFetch(() => ({ status: 202, body: { accepted: 1 } }), {
      includeTelemetry: true,
    });
    track('post_job_attempt');
    flushTelemetry();
    await Promise.resolve();
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe('/api/telemetry');
    expect(calls[0].headers['X-Correlation-Id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives a different correlation id to every request', async () => {
    const { calls } = mockFetch(() => ({ body: {} }));
    await requestWithReauth({ url: '/a' });
    await requestWithReauth({ url: '/b' });
    expect(calls[0].headers['X-Correlation-Id']).not.toBe(calls[1].headers['X-Correlation-Id']);
  });

  it('refreshes exactly once when three requests fail with 401 together, then replays all three', async () => {
    setToken('old');
    const gate = deferred();
    let refreshCalls = 0;
    const { calls } = mockFetch(async (c) => {
      if (c.url === '/api/auth/refresh') {
        refreshCalls++;
        await gate.promise; // keep the refresh in flight while the other 401s arrive
        return { body: { access_token: 'new' } };
      }
      return bearer(c.headers) === 'new'
        ? { body: { url: c.url } }
        : { status: 401, body: { detail: 'expired', code: 'unauthorized' } };
    });
    const all = Promise.all([
      requestWithReauth({ url: '/one' }),
      requestWithReauth({ url: '/two' }),
      requestWithReauth({ url: '/three' }),
    ]);
    await new Promise((r) => setTimeout(r, 20));
    gate.resolve();
    const results = await all;
    expect(refreshCalls).toBe(1);
    expect(results.map((r) => r.data)).toEqual([
      { url: '/api/one' },
      { url: '/api/two' },
      { url: '/api/three' },
    ]);
    const replays = calls.filter(
      (c) => c.url !== '/api/auth/refresh' && bearer(c.headers) === 'new',
    );
    expect(replays).toHaveLength(3);
    expect(getToken()).toBe('new');
    expect(window.sessionStorage.getItem('access_token')).toBe('new');
    expect(window.sessionStorage.getItem('token')).toBe('new');
    expect(expired).toBe(0);
    expect(pendingTelemetry().map((e) => e.name)).toEqual([
      'api_refresh_attempt',
      'api_refresh_success',
    ]);
  });

  it('does not refresh again for a 401 that arrives after the refresh already finished', async () => {
    setToken('old');
    let refreshCalls = 0;
    const slow = deferred();
    mockFetch(async (c) => {
      if (c.url === '/api/auth/refresh') {
        refreshCalls++;
        return { body: { access_token: 'new' } };
      }
      if (c.url === '/api/slow' && bearer(c.headers) === 'old') {
        await slow.promise;
        return { status: 401 };
      }
      return bearer(c.headers) === 'new' ? { body: { ok: c.url } } : { status: 401 };
    });
    const slowReq = requestWithReauth({ url: '/slow' });
    await new Promise((r) => setTimeout(r, 5));
    expect((await requestWithReauth({ url: '/fast' })).data).toEqual({ ok: '/api/fast' });
    slow.resolve();
    expect((await slowReq).data).toEqual({ ok: '/api/slow' });
    expect(refreshCalls).toBe(1);
  });

  it('on refresh failure clears the tokens and fires auth-expired once for three failing requests', async () => {
    setToken('old');
    window.localStorage.setItem('refresh_token', 'r');
    window.localStorage.setItem('token', 'legacy');
    let refreshCalls = 0;
    const gate = deferred();
    mockFetch(async (c) => {
      if (c.url === '/api/auth/refresh') {
        refreshCalls++;
        await gate.promise;
        return { status: 401, body: { detail: 'no session', code: 'unauthorized' } };
      }
      return { status: 401 };
    });
    const all = Promise.all([
      requestWithReauth({ url: '/a' }),
      requestWithReauth({ url: '/b' }),
      requestWithReauth({ url: '/c' }),
    ]);
    await new Promise((r) => setTimeout(r, 20));
    gate.resolve();
    const results = await all;
    expect(refreshCalls).toBe(1);
    expect(results.every((r) => r.error && r.error.status === 401)).toBe(true);
    expect(getToken()).toBeNull();
    expect(window.localStorage.getItem('refresh_token')).toBeNull();
    expect(expired).toBe(1);
    expect(pendingTelemetry().map((e) => e.name)).toEqual([
      'api_refresh_attempt',
      'api_refresh_failure',
    ]);
  });

  it('does not fire auth-expired when no token existed', async () => {
    mockFetch((c) => (c.url === '/api/auth/refresh' ? { status: 401 } : { status: 401 }));
    const res = await requestWithReauth({ url: '/me' });
    expect(res.error?.status).toBe(401);
    expect(expired).toBe(0);
  });

  it('never refreshes because the refresh call itself got 401', async () => {
    setToken('old');
    const { calls } = mockFetch(() => ({ status: 401 }));
    await requestWithReauth({ url: '/auth/refresh', method: 'POST' });
    expect(calls).toHaveLength(1);
  });

  it('replays a request only once even if the replay gets 401 again', async () => {
    setToken('old');
    let refreshCalls = 0;
    const { calls } = mockFetch((c) => {
      if (c.url === '/api/auth/refresh') {
        refreshCalls++;
        return { body: { access_token: 'new' } };
      }
      return { status: 401 };
    });
    const res = await requestWithReauth({ url: '/jobs' });
    expect(res.error?.status).toBe(401);
    expect(refreshCalls).toBe(1);
    expect(calls.filter((c) => c.url === '/api/jobs')).toHaveLength(2);
  });

  it('sends the attempt Idempotency-Key and the same key again on the replay after a refresh', async () => {
    setToken('old');
    const { calls } = mockFetch((c) => {
      if (c.url === '/api/auth/refresh') return { body: { access_token: 'new' } };
      return bearer(c.headers) === 'new' ? { status: 201, body: { job: {} } } : { status: 401 };
    });
    const key = newIdempotencyKey();
    const res = await requestWithReauth({
      url: '/jobs',
      method: 'POST',
      body: { title: 't' },
      idempotencyKey: key,
    });
    expect(res.data).toEqual({ job: {} });
    const posts = calls.filter((c) => c.url === '/api/jobs');
    expect(posts.map((c) => c.headers['Idempotency-Key'])).toEqual([key, key]);
    expect(newIdempotencyKey()).not.toBe(key);
    // Calls without a key (reads) send no header.
    await requestWithReauth({ url: '/me' });
    expect(calls.at(-1)!.headers['Idempotency-Key']).toBeUndefined();
  });

  it('answers 401 token_stale (the account changed) with one silent refresh and replays with the new token', async () => {
    setToken('before-approval');
    const { calls } = mockFetch((c) => {
      if (c.url === '/api/auth/refresh') return { body: { access_token: 'approved' } };
      if (bearer(c.headers) === 'approved') return { body: { approved: true } };
      return { status: 401, body: { detail: 'Your account changed', code: 'token_stale' } };
    });
    const res = await requestWithReauth({ url: '/me' });
    expect(res.data).toEqual({ approved: true });
    expect(calls.map((c) => c.url)).toEqual(['/api/me', '/api/auth/refresh', '/api/me']);
    expect(getToken()).toBe('approved');
    expect(expired).toBe(0);
  });

  it('keeps the session after token_stale when the refresh is lost to the network (and ends it when the refresh is refused)', async () => {
    setToken('before-approval');
    mockFetch((c) =>
      c.url === '/api/auth/refresh'
        ? 'network-error'
        : { status: 401, body: { detail: 'Your account changed', code: 'token_stale' } },
    );
    const res = await requestWithReauth({ url: '/me' });
    expect(res.error?.status).toBe(401);
    expect(getToken()).toBe('before-approval');
    expect(expired).toBe(0);

    mockFetch((c) =>
      c.url === '/api/auth/refresh'
        ? { status: 401, body: { code: 'invalid_refresh_token' } }
        : { status: 401, body: { code: 'token_stale' } },
    );
    await requestWithReauth({ url: '/me' });
    expect(getToken()).toBeNull();
    expect(expired).toBe(1);
  });

  it('reports a network failure as FETCH_ERROR and a 4xx body as data', async () => {
    mockFetch(() => 'network-error');
    expect((await requestWithReauth({ url: '/x' })).error?.status).toBe('FETCH_ERROR');
    mockFetch(() => ({ status: 409, body: { detail: 'Already signed up', code: 'conflict' } }));
    const r = await requestWithReauth({ url: '/waitlist', method: 'POST', body: {} });
    expect(r.error).toEqual({
      status: 409,
      data: { detail: 'Already signed up', code: 'conflict' },
    });
  });

  it('times out after the given limit', async () => {
    (globalThis as Record<string, unknown>).fetch = (_u: string, init: RequestInit) =>
      new Promise((_res, rej) =>
        init.signal?.addEventListener('abort', () =>
          rej(new DOMException('aborted', 'AbortError')),
        ),
      );
    const r = await requestWithReauth({ url: '/slow', timeoutMs: 30 });
    expect(r.error?.status).toBe('TIMEOUT_ERROR');
  });
});
