/**
 * The client side of bench/live-scale.ts, in its own process (its file limit raised by the
 * parent with prlimit): holds thousands of live streams on bare sockets, parses their SSE frames,
 * and per stream counts the messages it got and those not meant for its user; per target it
 * keeps every delivery's latency (the message carries the publisher's clock, same machine).
 *
 * Parent -> child (IPC): {type: 'open', targets: [{name, port, streams: [{paths, user, kind, country}]}]}
 * (a refused open is tried again after 1-3 s with the stream's next path, as the web app asks a
 * new ticket and reconnects with backoff)
 * then {type: 'report'} any number of times, then {type: 'close'}.
 */
import { connect } from 'node:net';

const now = () => performance.timeOrigin + performance.now();

/** Whether a message's audience admits this stream's user (the hub's rule). */
function admits(s, to) {
  if (to.users.includes(s.user)) return true;
  if (to.admins && s.kind === 'admin') return true;
  if (to.testers && s.kind === 'tester')
    return to.testers === 'any' || (s.country !== null && to.testers.includes(s.country));
  return false;
}

const targets = [];

async function openWithRetry(target, port, s) {
  for (let i = 0; ; i++) {
    const st = await openOne(target, s.port ?? port, s, s.paths[i]);
    if (st.ok || i + 1 >= s.paths.length) return st;
    target.retried++;
    await new Promise((r) => setTimeout(r, 1000 + Math.random() * 2000));
  }
}

function openOne(target, port, s, path) {
  return new Promise((resolve) => {
    const st = {
      user: s.user,
      kind: s.kind,
      country: s.country,
      got: 0,
      wrong: 0,
      pings: 0,
      closed: false,
      ok: false,
      buf: '',
    };
    const sock = connect(port, '127.0.0.1', () =>
      sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`),
    );
    sock.setEncoding('utf8');
    sock.setNoDelay(true);
    sock.on('data', (d) => {
      if (!st.ok) {
        if (!d.startsWith('HTTP/1.1 200')) {
          target.refused.push(d.split('\r\n')[0]);
          sock.destroy();
          return resolve(st);
        }
        st.ok = true;
        resolve(st);
        const i = d.indexOf('\r\n\r\n');
        d = i >= 0 ? d.slice(i + 4) : '';
      }
      st.buf += d;
      // Chunked transfer: frames end with a blank line; chunk-size lines are skipped below.
      let end;
      while ((end = st.buf.indexOf('\n\n')) >= 0) {
        const frame = st.buf.slice(0, end);
        st.buf = st.buf.slice(end + 2);
        const at = frame.indexOf('data: {');
        if (at < 0) {
          if (frame.includes(': ping')) st.pings++;
          continue;
        }
        let m;
        try {
          m = JSON.parse(
            frame.slice(at + 6, frame.indexOf('\n', at) >= 0 ? frame.indexOf('\n', at) : undefined),
          );
        } catch {
          target.badFrames++;
          continue;
        }
        if (m.bench === undefined) continue;
        st.got++;
        target.latencies.push(now() - m.bench.t);
        if (!admits(st, m.bench.to)) st.wrong++;
      }
    });
    sock.on('error', () => undefined);
    sock.on('close', () => {
      st.closed = true;
      if (!st.ok) resolve(st);
    });
    st.sock = sock;
  });
}

async function openAll(t) {
  const target = {
    name: t.name,
    streams: [],
    refused: [],
    retried: 0,
    latencies: [],
    badFrames: 0,
  };
  targets.push(target);
  const queue = [...t.streams];
  const workers = Array.from({ length: 100 }, async () => {
    for (let s; (s = queue.shift());) target.streams.push(await openWithRetry(target, t.port, s));
  });
  await Promise.all(workers);
}

function pct(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

process.on('message', async (msg) => {
  if (msg.type === 'open') {
    for (const t of msg.targets) await openAll(t);
    process.send({
      type: 'opened',
      targets: targets.map((t) => ({
        name: t.name,
        open: t.streams.filter((s) => s.ok && !s.closed).length,
        refused: t.refused.slice(0, 5),
        refusedCount: t.refused.length,
        retried: t.retried,
      })),
    });
  } else if (msg.type === 'report') {
    process.send({
      type: 'report',
      targets: targets.map((t) => {
        const lat = Float64Array.from(t.latencies).sort();
        return {
          name: t.name,
          counts: t.streams.map((s) => s.got),
          users: t.streams.map((s) => s.user),
          wrong: t.streams.reduce((a, s) => a + s.wrong, 0),
          closed: t.streams.filter((s) => s.closed).length,
          pings: t.streams.reduce((a, s) => a + s.pings, 0),
          badFrames: t.badFrames,
          deliveries: lat.length,
          p50: pct(lat, 50),
          p99: pct(lat, 99),
          max: lat.length ? lat[lat.length - 1] : NaN,
        };
      }),
    });
  } else if (msg.type === 'close') {
    for (const t of targets) for (const s of t.streams) s.sock?.destroy();
    process.exit(0);
  }
});
process.send({ type: 'ready' });
