import net from 'node:net';

/**
 * Which addresses a fetch of a customer-given URL may reach (the allow rule of Stripe's
 * Smokescreen): public unicast addresses only. One rule for every outgoing call to an address a
 * user typed: webhooks, Jira sites, the site check's egress proxy.
 *
 * Refused, with the reason a report names:
 * - IPv4: 0/8, 10/8, 100.64/10 (CGNAT), 127/8, 169.254/16 (link-local; 169.254.169.254 is cloud
 *   metadata), 172.16/12, 192.0.0/24, 192.0.2/24, 192.88.99/24, 192.168/16, 198.18/15,
 *   198.51.100/24, 203.0.113/24, 224/4 (multicast), 240/4 and 255.255.255.255.
 * - IPv6: ::, ::1, fc00::/7 (unique local, also fd00:ec2::254, the IPv6 metadata address),
 *   fe80::/10 and fec0::/10 (link/site-local), ff00::/8 (multicast), 100::/64, 2001:db8::/32,
 *   2001::/32 (Teredo), 64:ff9b:1::/48; and every form that carries an IPv4 address is judged as
 *   that address: IPv4-mapped (::ffff:a.b.c.d, ::ffff:7f00:1); IPv4-compatible (::a.b.c.d),
 *   NAT64 (64:ff9b::/96) and 6to4 (2002::/16) are refused whatever IPv4 address they carry.
 * - Anything that is not an IP address.
 */
export type RefusedReason =
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'not_an_address';

const V4_RULES: Array<[string, number, RefusedReason]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.169.254', 32, 'metadata'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6_RULES: Array<[string, number, RefusedReason]> = [
  ['fd00:ec2::254', 128, 'metadata'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'private'],
  ['ff00::', 8, 'multicast'],
  ['100::', 64, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['2001::', 32, 'reserved'], // Teredo: a tunnel to an address we cannot see
  ['64:ff9b:1::', 48, 'reserved'],
];

/** One BlockList per reason, in the order above (the first that matches names the reason). */
function lists(rules: Array<[string, number, RefusedReason]>, type: 'ipv4' | 'ipv6') {
  return rules.map(([a, p, reason]) => {
    const list = new net.BlockList();
    list.addSubnet(a, p, type);
    return { list, reason };
  });
}
const V4 = lists(V4_RULES, 'ipv4');
const V6 = lists(V6_RULES, 'ipv6');

/** The 8 hextets of an IPv6 address (a dotted IPv4 tail becomes the last two); null when not IPv6. */
export function ipv6Hextets(address: string): number[] | null {
  if (net.isIP(address) !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number);
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const left = part(head);
  const right = part(rest);
  const fill = rest === undefined ? [] : new Array(8 - left.length - right.length).fill(0);
  const all = [...left, ...fill, ...right];
  return all.length === 8 ? all : null;
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(address: string): string | null {
  const h = ipv6Hextets(address);
  if (!h) return null;
  const zeros = (from: number, to: number) => h.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && h[5] === 0xffff) return v4Of(h[6], h[7]); // ::ffff:a.b.c.d
  if (zeros(0, 6)) return v4Of(h[6], h[7]); // ::a.b.c.d (and :: and ::1)
  if (h[0] === 0x64 && h[1] === 0xff9b && zeros(2, 6)) return v4Of(h[6], h[7]); // NAT64
  if (h[0] === 0x2002) return v4Of(h[1], h[2]); // 6to4
  return null;
}

/** Why an address may not be reached, or null for a public unicast address. */
export function refusedAddressReason(address: string): RefusedReason | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = net.isIP(bare);
  if (family === 4) return V4.find((r) => r.list.check(bare, 'ipv4'))?.reason ?? null;
  if (family !== 6) return 'not_an_address';
  const h = ipv6Hextets(bare);
  if (!h) return 'not_an_address';
  if (h.every((x) => x === 0)) return 'unspecified';
  if (h.slice(0, 7).every((x) => x === 0) && h[7] === 1) return 'loopback';
  const v4 = embeddedIpv4(bare);
  // IPv4-mapped is that IPv4 address; the translation and tunnel forms (IPv4-compatible, NAT64,
  // 6to4) are refused whatever they carry: some stacks route them somewhere this check cannot see.
  const mapped = h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff;
  if (v4) return refusedAddressReason(v4) ?? (mapped ? null : 'reserved');
  return V6.find((r) => r.list.check(bare, 'ipv6'))?.reason ?? null;
}

/** True for an address no customer-given URL may reach. */
export function isPrivateAddress(address: string): boolean {
  return refusedAddressReason(address) !== null;
}

/** A sentence for a report: why the address was not reached. */
export function refusedReasonText(reason: RefusedReason): string {
  switch (reason) {
    case 'loopback':
      return 'a loopback address (this machine)';
    case 'private':
      return 'a private network address';
    case 'link_local':
      return 'a link-local address';
    case 'metadata':
      return 'the cloud metadata address';
    case 'cgnat':
      return 'a carrier-grade NAT address';
    case 'multicast':
      return 'a multicast address';
    case 'unspecified':
      return 'an unspecified address';
    case 'reserved':
      return 'a reserved address';
    case 'not_an_address':
      return 'not an address';
  }
}
