import dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import { refusedAddressReason, type RefusedReason } from '@htm/service-kit/egress';

/**
 * The site check's egress proxy (the pattern of Stripe's Smokescreen): Chromium reaches the
 * network only through it (`--proxy-server`, loopback included). For every request (the page,
 * each redirect, each sub-resource, a CONNECT tunnel for https and WebSockets) it resolves the
 * host itself, refuses loopback, private, link-local, CGNAT, multicast and metadata addresses
 * (IPv4, IPv6 and the forms that carry IPv4), and connects to the address it checked (pinned: a
 * second DNS answer can never swap in another address). A refused request is recorded and never
 * connected.
 */

export type Resolve = (host: string) => Promise<string[]>;
export type Connect = (address: string, port: number) => net.Socket;

export interface EgressPolicy {
  /** SITE_CHECK_ALLOW_PRIVATE (tests only): private addresses are let through. */
  allowPrivate: boolean;
  /** Resolves a name to its addresses (default: the system resolver, every address). */
  resolve?: Resolve;
  /** Opens a TCP connection to a checked address (default: net.connect). */
  connect?: Connect;
}

export type EgressRefusedReason = RefusedReason | 'unresolvable' | 'bad_request';

export interface Refusal {
  /** What was asked for: the URL (http) or `https://host:port` (a tunnel). */
  url: string;
  host: string;
  /** The address the name resolved to (null when it did not resolve). */
  address: string | null;
  reason: EgressRefusedReason;
}

export interface EgressProxy {
  /** `http://127.0.0.1:<port>` for Chromium's --proxy-server. */
  url: string;
  port: number;
  /** Every request refused so far, in order. */
  refusals: Refusal[];
  /** Every connection opened (host as asked, the pinned address, port). */
  connections: Array<{ host: string; address: string; port: number }>;
  close(): Promise<void>;
}

/** Header on the proxy's own 403 answer to a refused plain-http request. */
export const REFUSED_HEADER = 'x-site-check-refused';

const systemResolve: Resolve = async (host) =>
  (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

const systemConnect: Connect = (address, port) => net.connect({ host: address, port });

type Decision =
  | { ok: true; address: string }
  | { ok: false; address: string | null; reason: EgressRefusedReason };

/** The address to connect to for a host, or why none may be. Every address of a name must be public. */
export async function decideHost(
  host: string,
  policy: Pick<EgressPolicy, 'allowPrivate' | 'resolve'>,
): Promise<Decision> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (net.isIP(bare)) addresses = [bare];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(bare);
    } catch {
      addresses = [];
    }
  }
  if (!addresses.length) return { ok: false, address: null, reason: 'unresolvable' };
  if (!policy.allowPrivate) {
    for (const a of addresses) {
      const reason = refusedAddressReason(a);
      if (reason) return { ok: false, address: a, reason };
    }
  }
  return { ok: true, address: addresses[0] };
}

/** Headers a proxy must not pass on (hop-by-hop, RFC 9110 7.6.1, and the proxy's own). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export async function startEgressProxy(policy: EgressPolicy): Promise<EgressProxy> {
  const refusals: Refusal[] = [];
  const connections: EgressProxy['connections'] = [];
  const connect = policy.connect ?? systemConnect;
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    return s;
  };

  const server = http.createServer(async (req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      refusals.push({ url: req.url ?? '', host: '', address: null, reason: 'bad_request' });
      res.writeHead(400, { [REFUSED_HEADER]: 'bad_request' }).end();
      return;
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const port = Number(target.port || 80);
    const d = await decideHost(host, policy);
    if (!d.ok) {
      refusals.push({ url: target.href, host, address: d.address, reason: d.reason });
      res
        .writeHead(403, { 'content-type': 'text/plain', [REFUSED_HEADER]: d.reason })
        .end(`Refused by the site check: ${host} is ${d.reason}\n`);
      return;
    }
    connections.push({ host, address: d.address, port });
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
    const upstream = http.request({
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
      // No agent: a connection of its own, to the checked address (an agent would connect by name).
      createConnection: () => track(connect(d.address, port)),
    });
    upstream.on('response', (up) => {
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(up.headers))
        if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
      res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });

  server.on('connect', async (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    track(client);
    client.on('error', () => undefined);
    let host = '';
    let port = 443;
    try {
      const u = new URL(`http://${req.url ?? ''}`);
      host = u.hostname.replace(/^\[|\]$/g, '');
      port = Number(u.port || 443);
    } catch {
      refusals.push({ url: req.url ?? '', host: '', address: null, reason: 'bad_request' });
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const url = `https://${req.url}`;
    const d = await decideHost(host, policy);
    if (!d.ok) {
      refusals.push({ url, host, address: d.address, reason: d.reason });
      client.end(`HTTP/1.1 403 Forbidden\r\n${REFUSED_HEADER}: ${d.reason}\r\n\r\n`);
      return;
    }
    connections.push({ host, address: d.address, port });
    const upstream = track(connect(d.address, port));
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (client.writable) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
  });

  // A plain ws:// upgrade sent in absolute form: refused (a page's check needs none).
  server.on('upgrade', (req: http.IncomingMessage, socket: net.Socket) => {
    refusals.push({ url: req.url ?? '', host: '', address: null, reason: 'bad_request' });
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  server.on('connection', (s: net.Socket) => track(s));

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    refusals,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
