import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Webhook } from 'standardwebhooks';

/** Addresses a webhook may not reach outside development: loopback, private, link-local (cloud metadata), CGNAT, multicast, reserved. */
const BLOCKED = new net.BlockList();
for (const [a, p] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(a, p, 'ipv4');
for (const [a, p] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
] as const)
  BLOCKED.addSubnet(a, p, 'ipv6');

/** True for an address no webhook may reach (IPv4-mapped IPv6 is judged as the IPv4 address). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) return BLOCKED.check(address, 'ipv6');
  return true;
}

class RefusedAddress extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

/** dns.lookup that refuses a name resolving to a private address (the agent connects only to what this answers). */
const safeLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || !list.length)
      return callback(
        new RefusedAddress(`${hostname} resolves to a private address (${bad?.address ?? 'none'})`),
        '',
        0,
      );
    if ((options as dns.LookupOptions).all)
      (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    else callback(null, list[0].address, list[0].family);
  });
};

/**
 * Agents for calls to addresses a user typed (a Jira site): names resolving to private addresses
 * are refused (a literal private IP is refused by `isPrivateAddress` before the call).
 */
export function publicOnlyAgents(): { httpAgent: http.Agent; httpsAgent: https.Agent } {
  return {
    httpAgent: new http.Agent({ lookup: safeLookup }),
    httpsAgent: new https.Agent({ lookup: safeLookup }),
  };
}

export interface SendOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  maxBodyBytes: number;
}

export interface SendResult {
  ok: boolean;
  code: number | null;
  error: string | null;
}

const USER_AGENT = 'HumanTest-Webhooks/1.0';

/**
 * One signed attempt (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature made by
 * the `standardwebhooks` library). http(s) only; no redirects followed (a 3xx is a failure); at
 * most `maxBodyBytes` of the answer read; `timeoutMs` for the whole attempt. Unless private
 * addresses are allowed, the address is checked when the name is resolved and again on the
 * socket actually connected (a literal IP in the URL, DNS rebinding).
 */
export async function sendWebhook(
  target: { url: string; secret: string; msgId: string; body: string },
  opts: SendOptions,
): Promise<SendResult> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return { ok: false, code: null, error: 'invalid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, code: null, error: 'only http and https are allowed' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!opts.allowPrivate && net.isIP(host) && isPrivateAddress(host))
    return { ok: false, code: null, error: `refused: ${host} is a private address` };
  const now = new Date();
  const signature = new Webhook(target.secret).sign(target.msgId, now, target.body);
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': target.msgId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
    'content-length': String(Buffer.byteLength(target.body)),
  };
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = lib.request(
      url,
      {
        method: 'POST',
        headers,
        agent: false,
        ...(opts.allowPrivate ? {} : { lookup: safeLookup }),
      },
      (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => {
          n += c.length;
          if (n >= opts.maxBodyBytes) res.destroy();
        });
        const code = res.statusCode ?? null;
        const done = () =>
          finish({
            ok: code !== null && code >= 200 && code < 300,
            code,
            error: code !== null && code >= 300 && code < 400 ? 'redirect not followed' : null,
          });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    req.on('socket', (socket) => {
      if (opts.allowPrivate) return;
      socket.once('connect', () => {
        const remote = socket.remoteAddress ?? '';
        if (isPrivateAddress(remote))
          req.destroy(new RefusedAddress(`refused: connected to private address ${remote}`));
      });
    });
    req.on('error', (err) =>
      finish({
        ok: false,
        code: null,
        error:
          err instanceof RefusedAddress
            ? err.message.replace(/^(?!refused)/, 'refused: ')
            : `${(err as NodeJS.ErrnoException).code ?? 'error'}: ${err.message}`,
      }),
    );
    const timer = setTimeout(() => {
      req.destroy(new Error('timed out'));
      finish({ ok: false, code: null, error: `timed out after ${opts.timeoutMs} ms` });
    }, opts.timeoutMs);
    req.end(target.body);
  });
}
