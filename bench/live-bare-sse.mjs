/**
 * The baseline of bench/live-scale.ts: the least a live server can do, in its own process. Plain
 * node:http (no express, no tickets, no caps, no timers), one blocking XREAD on the same Redis
 * stream of live messages the gateway reads, each message written once serialised to the streams
 * its audience names (users by a map, admins and testers by a scan).
 *
 * Env: PORT, REDIS_URL, KEY. A stream is GET /live?user=U&kind=tester|admin&country=US.
 */
import http from 'node:http';
import { Redis } from 'ioredis';

const conns = new Set();
const byUser = new Map();

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/healthz') return res.end('ok');
  const c = {
    res,
    user: url.searchParams.get('user'),
    kind: url.searchParams.get('kind'),
    country: url.searchParams.get('country') || null,
  };
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
  });
  res.write(': connected\n\n');
  conns.add(c);
  let mine = byUser.get(c.user);
  if (!mine) byUser.set(c.user, (mine = new Set()));
  mine.add(c);
  res.on('close', () => {
    conns.delete(c);
    mine.delete(c);
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');

const redis = new Redis(process.env.REDIS_URL);
const key = process.env.KEY;
let last = (await redis.xrevrange(key, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
for (;;) {
  const res = await redis.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', key, last);
  for (const [, entries] of res ?? []) {
    for (const [id, fields] of entries) {
      last = id;
      const m = JSON.parse(fields[1]);
      const to = m.to;
      const text = `id: ${id}\nevent: ${m.event}\ndata: ${JSON.stringify(m.data)}\n\n`;
      const targets = new Set();
      for (const u of to.users) for (const c of byUser.get(u) ?? []) targets.add(c);
      if (to.admins || to.testers) {
        for (const c of conns) {
          if (
            (to.admins && c.kind === 'admin') ||
            (to.testers &&
              c.kind === 'tester' &&
              (to.testers === 'any' || (c.country && to.testers.includes(c.country))))
          )
            targets.add(c);
        }
      }
      for (const c of targets) c.res.write(text);
    }
  }
}
