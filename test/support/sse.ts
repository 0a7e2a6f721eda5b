/** A small Server-Sent Events reader over fetch, for tests and benchmarks of the live channel. */

export interface SseMessage {
  id?: string;
  event: string;
  data: Record<string, unknown>;
  /** When the message was parsed (performance.now()). */
  at: number;
}

export interface SseStream {
  status: number;
  /** The JSON body of a refused stream. */
  body?: { detail?: string; code?: string };
  contentType: string | null;
  messages: SseMessage[];
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** The first message (already received or still to come) matching `pred`, or rejects after `timeoutMs`. */
  next(pred: (m: SseMessage) => boolean, timeoutMs?: number, what?: string): Promise<SseMessage>;
  close(): void;
}

/** Opens `url` as an event stream (GET, optional headers). */
export async function openSse(
  url: string,
  headers: Record<string, string> = {},
): Promise<SseStream> {
  const ctrl = new AbortController();
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: ctrl.signal,
  });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  const waiters = new Set<{ pred: (m: SseMessage) => boolean; resolve: (m: SseMessage) => void }>();
  if (res.status !== 200) {
    const body = (await res.json().catch(() => undefined)) as SseStream['body'];
    return {
      status: res.status,
      body,
      contentType: res.headers.get('content-type'),
      messages,
      comments,
      ended: Promise.resolve(),
      next: () => Promise.reject(new Error(`stream refused: ${res.status}`)),
      close: () => undefined,
    };
  }
  const ended = (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += value;
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          let id: string | undefined;
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (!data.length) continue;
          const m: SseMessage = {
            id,
            event,
            data: JSON.parse(data.join('\n')) as Record<string, unknown>,
            at: performance.now(),
          };
          messages.push(m);
          for (const w of waiters) {
            if (!w.pred(m)) continue;
            waiters.delete(w);
            w.resolve(m);
          }
        }
      }
    } catch {
      /* aborted or cut */
    }
  })();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    messages,
    comments,
    ended,
    next(pred, timeoutMs = 5000, what = 'a live message') {
      const found = messages.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve: (m: SseMessage) => (clearTimeout(timer), resolve(m)) };
        const timer = setTimeout(
          () => (
            waiters.delete(w),
            reject(
              new Error(
                `no ${what} within ${timeoutMs} ms; got ${JSON.stringify(messages.map((x) => [x.event, x.data]))}`,
              ),
            )
          ),
          timeoutMs,
        );
        waiters.add(w);
      });
    },
    close: () => ctrl.abort(),
  };
}
