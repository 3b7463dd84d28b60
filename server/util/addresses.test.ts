// Every spelling of an address parsed to one canonical form and classified as the address it reaches.
import { describe, expect, it } from 'vitest';
import { addressClass, parseAddress, parseIpv4 } from './addresses.ts';

describe('parseAddress', () => {
  it('reads IPv4 in every form the resolver accepts: dotted, decimal, octal, hex, short', () => {
    for (const spelling of ['127.0.0.1', '2130706433', '0177.0.0.1', '0x7f.0.0.1', '0x7f000001', '127.1', '0x7f.1', '017700000001']) {
      expect(parseAddress(spelling), spelling).toEqual({ family: 4, address: '127.0.0.1', class: 'loopback' });
    }
    expect(parseAddress('169.254.169.254')).toEqual({ family: 4, address: '169.254.169.254', class: 'link-local' });
    expect(parseAddress('0xa9fea9fe')?.address).toBe('169.254.169.254');
    expect(parseIpv4('256.0.0.1')).toBeUndefined();
    expect(parseIpv4('1.2.3.4.5')).toBeUndefined();
    expect(parseIpv4('08.0.0.1')).toBeUndefined();
  });

  it('reads an IPv4 address carried in IPv6 (mapped, compatible, NAT64, 6to4) as that IPv4 address', () => {
    for (const spelling of ['::ffff:127.0.0.1', '[::ffff:7f00:1]', '::FFFF:7F00:0001', '0:0:0:0:0:ffff:127.0.0.1', '::127.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::']) {
      expect(parseAddress(spelling), spelling).toEqual({ family: 4, address: '127.0.0.1', class: 'loopback' });
    }
    expect(parseAddress('[::ffff:169.254.169.254]')?.class).toBe('link-local');
    expect(parseAddress('::ffff:a9fe:a9fe')?.class).toBe('link-local');
    expect(parseAddress('::ffff:10.1.2.3')?.class).toBe('private');
  });

  it('classifies IPv6: loopback, unspecified, link-local (with a zone), unique local, multicast, public', () => {
    expect(parseAddress('::1')).toEqual({ family: 6, address: '::1', class: 'loopback' });
    expect(parseAddress('[0:0:0:0:0:0:0:1]')?.address).toBe('::1');
    expect(addressClass('::')).toBe('unspecified');
    expect(addressClass('fe80::1%eth0')).toBe('link-local');
    expect(addressClass('fd12:3456::1')).toBe('private');
    expect(addressClass('ff02::1')).toBe('reserved');
    expect(parseAddress('2606:4700:0:0:0:0:0:1111')).toEqual({ family: 6, address: '2606:4700::1111', class: 'public' });
  });

  it('classifies IPv4 ranges: unspecified, private, carrier-grade NAT, reserved, public', () => {
    expect(addressClass('0.0.0.0')).toBe('unspecified');
    expect(addressClass('0')).toBe('unspecified');
    for (const a of ['10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '100.64.0.1']) expect(addressClass(a), a).toBe('private');
    for (const a of ['224.0.0.1', '255.255.255.255', '192.0.2.7']) expect(addressClass(a), a).toBe('reserved');
    for (const a of ['8.8.8.8', '172.32.0.1', '1.1.1.1']) expect(addressClass(a), a).toBe('public');
  });

  it('a name is no address: undefined (resolve it first)', () => {
    for (const name of ['localhost', 'example.com', 'cafe', 'deadbeef', '127.0.0.1.nip.io', '']) expect(parseAddress(name), name).toBeUndefined();
  });
});
