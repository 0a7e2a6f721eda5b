/**
 * What one tab asks the server for its job lists, and which live messages it has received:
 * the data-layer tests count the list requests a step causes (issue #50: a claim, a submission
 * or an acceptance refetches no list; the live message patches the other tabs' caches).
 */
import type { Page } from 'playwright-core';

/** The job lists of the web app (GET): the poster's and admin's, the tester's two. */
export const LIST_PATHS = ['/api/jobs', '/api/tester/my-jobs', '/api/tester/available-jobs'];

interface Seen {
  path: string;
  seq: number;
  done: boolean;
}

export interface LiveMessage {
  event: string;
  data: Record<string, unknown>;
}

export interface ListRecorder {
  /** A mark in this tab's sequence of requests: `since(mark)` counts what came after it. */
  mark(): number;
  /** The list requests (paths) started after `mark`. */
  since(mark: number): string[];
  /** Waits until the tab is quiet: every list request it started has ended, and each list it shows was read after its live stream opened (the stream's first refetch is done). */
  settled(paths: string[]): Promise<void>;
  /** Waits for a live message of this tab that `match` accepts, then for the next frame (the tab has applied it). */
  received(match: (m: LiveMessage) => boolean, what: string): Promise<void>;
}

/** Waits (polling) until `ok` holds; fails after `timeoutMs` saying `what` was awaited. */
async function until(ok: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Starts recording `page`'s list requests and live messages (call before the page loads). */
export async function recordLists(page: Page): Promise<ListRecorder> {
  let seq = 0;
  let liveOpenedAt = Number.POSITIVE_INFINITY;
  const seen: Seen[] = [];
  const byRequest = new Map<unknown, Seen>();
  const messages: LiveMessage[] = [];
  page.on('request', (r) => {
    const { pathname } = new URL(r.url());
    seq += 1;
    if (r.method() !== 'GET' || !LIST_PATHS.includes(pathname)) return;
    const s = { path: pathname, seq, done: false };
    seen.push(s);
    byRequest.set(r, s);
  });
  const finish = (r: unknown) => {
    const s = byRequest.get(r);
    if (s) s.done = true;
  };
  page.on('requestfinished', finish);
  page.on('requestfailed', finish);
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === '/api/live' && r.status() === 200) {
      seq += 1;
      liveOpenedAt = seq;
    }
  });
  // The live channel is an EventSource: its messages reach the test through the DevTools protocol.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.eventSourceMessageReceived', (e) => {
    try {
      messages.push({ event: e.eventName, data: JSON.parse(e.data) as Record<string, unknown> });
    } catch {
      /* not JSON: not a message the app reads */
    }
  });
  return {
    mark: () => seq,
    since: (mark) => seen.filter((s) => s.seq > mark).map((s) => s.path),
    async settled(paths) {
      await until(
        () =>
          seen.every((s) => s.done) &&
          paths.every((p) => seen.some((s) => s.path === p && s.seq > liveOpenedAt && s.done)),
        `the tab's lists (${paths.join(', ')}) read after its live stream opened`,
      );
    },
    async received(match, what) {
      await until(() => messages.some(match), `the live message: ${what}`);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
    },
  };
}
