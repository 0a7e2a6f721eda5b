import { correlationId } from './tokens';

/**
 * Client telemetry (spec section 3): events are queued and sent in batches to
 * POST /api/telemetry. Best effort: failures are swallowed, nothing retries.
 */
export type TelemetryName =
  | 'api_refresh_attempt'
  | 'api_refresh_success'
  | 'api_refresh_failure'
  | 'post_job_attempt'
  | 'post_job_success'
  | 'post_job_failure';

interface TelemetryEvent {
  name: TelemetryName;
  at: string;
  props?: Record<string, string | number | boolean | null>;
}

const FLUSH_MS = 2_000;
const MAX_BATCH = 20;
let queue: TelemetryEvent[] = [];
let timer: ReturnType<typeof setTimeout> | null = null;
let listening = false;

export function track(name: TelemetryName, props?: TelemetryEvent['props']): void {
  queue.push({ name, at: new Date().toISOString(), ...(props ? { props } : {}) });
  if (queue.length >= MAX_BATCH) {
    flushTelemetry();
    return;
  }
  if (!timer) timer = setTimeout(flushTelemetry, FLUSH_MS);
  if (!listening && typeof window !== 'undefined') {
    listening = true;
    window.addEventListener('pagehide', flushTelemetry);
  }
}

export function flushTelemetry(): void {
  if (timer) {
    clearTimeout(timer);
    timer = null;
  }
  if (!queue.length) return;
  const events = queue;
  queue = [];
  try {
    if (typeof fetch !== 'function') return;
    void fetch('/api/telemetry', {
      method: 'POST',
      // Like every other request: the services log it under this id.
      headers: { 'Content-Type': 'application/json', 'X-Correlation-Id': correlationId() },
      body: JSON.stringify({ events }),
      credentials: 'include',
      keepalive: true,
    }).catch(() => undefined);
  } catch {
    /* best effort */
  }
}

/** For tests: what is waiting to be sent. */
export function pendingTelemetry(): readonly TelemetryEvent[] {
  return queue;
}

export function resetTelemetry(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  queue = [];
}
