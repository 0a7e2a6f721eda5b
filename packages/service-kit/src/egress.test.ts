import { describe, expect, it } from '@jest/globals';
import { embeddedIpv4, isPrivateAddress, refusedAddressReason } from './egress.js';

describe('egress address rule', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.10.1', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:c0a8:0101::1', 'private'],
    ['fc00::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['64:ff9b::808:808', 'reserved'],
    ['2002:0808:0808::1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['localhost', 'not_an_address'],
    ['example.com', 'not_an_address'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(refusedAddressReason(address)).toBe(reason);
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '93.184.215.14',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ])('lets the public address %s through', (address) => {
    expect(refusedAddressReason(address)).toBeNull();
  });

  it('finds the IPv4 address inside mapped, compatible, NAT64 and 6to4 forms', () => {
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::ffff:192.168.0.1')).toBe('192.168.0.1');
    expect(embeddedIpv4('64:ff9b::0a00:0001')).toBe('10.0.0.1');
    expect(embeddedIpv4('2002:0a00:0001::')).toBe('10.0.0.1');
    expect(embeddedIpv4('2606:4700::1111')).toBeNull();
  });
});
