import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Webhook } from 'standardwebhooks';
import { isPrivateAddress } from '@htm/service-kit/egress';

/**
 * True for an address no webhook may reach: loopback, private, link-local (cloud metadata), CGNAT,
 * multicast, reserved, and the IPv6 forms that carry one (service-kit's egress rule, shared with
 * the site check's proxy).
 */
export { isPrivateAddress };

/**
 * What the poster is told when an address is refused: never which internal address a name
 * resolved to or a socket reached (that would map the network behind the product for them).
 */
export const REFUSED_ADDRESS = 'refused: not a public address';

class RefusedAddress extends Error {
  readonly code = 'EPRIVATEADDRESS';
  constructor() {
    super(REFUSED_ADDRESS);
  }
}

/** dns.lookup that refuses a name resolving to a private address (the agent connects only to what this answers). */
const safeLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || !list.length) return callback(new RefusedAddress(), '', 0);
    if ((options as dns.LookupOptions).all)
      (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    else callback(null, list[0].address, list[0].family);
  });
};

/**
 * Agents for calls to addresses a user typed (a Jira site): names resolving to private addresses
 * are refused (a literal private IP is refused by `isPrivateAddress` before the call).
 */
export function publicOnlyAgents(ca?: string[]): {
  httpAgent: http.Agent;
  httpsAgent: https.Agent;
} {
  return {
    httpAgent: new http.Agent({ lookup: safeLookup }),
    httpsAgent: new https.Agent({ lookup: safeLookup, ...(ca ? { ca } : {}) }),
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
    return { ok: false, code: null, error: REFUSED_ADDRESS };
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
        if (isPrivateAddress(remote)) req.destroy(new RefusedAddress());
      });
    });
    req.on('error', (err) =>
      finish({
        ok: false,
        code: null,
        error:
          err instanceof RefusedAddress
            ? REFUSED_ADDRESS
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
