/* Test helpers for the web project (jsdom). Not a test file itself. */
import { TextDecoder, TextEncoder } from 'node:util';
import { jest } from '@jest/globals';

const g = globalThis as Record<string, unknown>;
if (!g.TextEncoder) g.TextEncoder = TextEncoder;
if (!g.TextDecoder) g.TextDecoder = TextDecoder;
// React 19 act() environment flag.
g.IS_REACT_ACT_ENVIRONMENT = true;

export interface FakeResponseInit {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function fakeResponse({ status = 200, body, headers = {} }: FakeResponseInit = {}) {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const h = new Map(
    Object.entries({
      'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
      ...headers,
    }),
  );
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: { get: (k: string) => h.get(k.toLowerCase()) ?? null },
    text: async () => text,
    blob: async () => new Blob([text]),
  };
}

export interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

export type Handler = (
  call: Call,
) => FakeResponseInit | Promise<FakeResponseInit> | 'network-error';

/** Replaces global fetch; returns the list of calls made (telemetry excluded unless asked). */
export function mockFetch(handler: Handler, opts: { includeTelemetry?: boolean } = {}) {
  const calls: Call[] = [];
  const fn = jest.fn(async (input: unknown, init?: RequestInit) => {
    const url = String(input);
    const headers = (init?.headers ?? {}) as Record<string, string>;
    let body: unknown = init?.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        /* keep text */
      }
    }
    const call: Call = { url, method: init?.method ?? 'GET', headers, body };
    if (url.includes('/api/telemetry') && !opts.includeTelemetry)
      return fakeResponse({ status: 202, body: { accepted: 1 } });
    calls.push(call);
    const r = await handler(call);
    if (r === 'network-error') throw new TypeError('Failed to fetch');
    return fakeResponse(r);
  });
  g.fetch = fn;
  return { calls, fn };
}

export function resetStorage() {
  window.sessionStorage.clear();
  window.localStorage.clear();
  for (const c of document.cookie.split(';')) {
    const name = c.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  }
}

export interface XhrCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  form: FormData;
}

/**
 * Replaces XMLHttpRequest; each send() reports progress 50% then answers with `respond`, at
 * once or, with `{ hold: true }`, only when the test calls `release()` (to look at the
 * in-between state however slow the machine is).
 */
export function mockXhr(
  respond: (call: XhrCall) => { status: number; body?: unknown },
  opts: { hold?: boolean } = {},
) {
  const calls: XhrCall[] = [];
  let release: () => void = () => undefined;
  const released = opts.hold ? new Promise<void>((r) => (release = r)) : Promise.resolve();
  class FakeXhr {
    upload: {
      onprogress:
        ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null;
    } = { onprogress: null };
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    ontimeout: (() => void) | null = null;
    withCredentials = false;
    timeout = 0;
    status = 0;
    responseText = '';
    private call: Partial<XhrCall> = { headers: {} };
    open(method: string, url: string) {
      this.call.method = method;
      this.call.url = url;
    }
    setRequestHeader(k: string, v: string) {
      this.call.headers![k] = v;
    }
    send(form: FormData) {
      this.call.form = form;
      const call = this.call as XhrCall;
      calls.push(call);
      setTimeout(() => {
        this.upload.onprogress?.({ lengthComputable: true, loaded: 50, total: 100 });
        void released.then(() =>
          setTimeout(() => {
            const r = respond(call);
            this.status = r.status;
            this.responseText = r.body === undefined ? '' : JSON.stringify(r.body);
            this.onload?.();
          }, 10),
        );
      }, 0);
    }
  }
  (globalThis as Record<string, unknown>).XMLHttpRequest = FakeXhr;
  return { calls, release: () => release() };
}

export function fileOf(name: string, type: string, size: number): File {
  const f = new File(['x'], name, { type });
  Object.defineProperty(f, 'size', { value: size });
  return f;
}
