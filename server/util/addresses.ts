// IP addresses as a check must see them: every spelling of one address parsed to one canonical form, and the kind of network it is on.
/*
 * A check that reads host strings can be walked around: `2130706433`, `0x7f.1` and `0177.0.0.1` are all
 * 127.0.0.1 to the resolver, `[::ffff:127.0.0.1]` (written `[::ffff:7f00:1]` once a URL has parsed it) is
 * 127.0.0.1 to the kernel, and NAT64 or 6to4 prefixes carry an IPv4 address inside an IPv6 one. So addresses
 * are parsed here to numbers, an IPv4 address carried in IPv6 is classified as that IPv4 address, and the
 * class decides (`addressClass`). Pure functions, no I/O: resolving names and pinning them is guarded-fetch.ts.
 */
import { isIP } from 'node:net';

/**
 * What kind of network an address is on. `unspecified` (0.0.0.0/8, ::) reaches this machine when connected to;
 * `reserved` is multicast, broadcast and the ranges no host should be called at.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'reserved';

export interface ParsedAddress {
  family: 4 | 6;
  /** Canonical text: dotted IPv4 (also for an IPv4 address carried in IPv6), else compressed lowercase IPv6. */
  address: string;
  class: AddressClass;
}

/** One IPv4 part as inet_aton reads it: decimal, octal (leading 0) or hex (0x). */
function ipv4Part(part: string): number | undefined {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return undefined;
}

/**
 * An IPv4 address in any form the resolver accepts (inet_aton: 1 to 4 parts, each decimal, octal or hex, the last
 * filling the remaining bytes), as a 32-bit number; undefined when `text` is not one.
 */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return undefined;
  const values = parts.map(ipv4Part);
  if (values.some((v) => v === undefined || !Number.isFinite(v))) return undefined;
  const nums = values as number[];
  const last = nums[nums.length - 1]!;
  const head = nums.slice(0, -1);
  if (head.some((v) => v > 255) || last >= 2 ** (8 * (4 - head.length))) return undefined;
  let value = 0;
  for (const v of head) value = value * 256 + v;
  return value * 2 ** (8 * (4 - head.length)) + last;
}

/** Eight 16-bit groups of an IPv6 address (zone id dropped, a dotted IPv4 tail read); undefined when not one. */
export function parseIpv6(text: string): number[] | undefined {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(bare) !== 6) return undefined;
  let body = bare.toLowerCase();
  // a dotted IPv4 tail (::ffff:127.0.0.1) is two groups written another way
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted) {
    const v4 = parseIpv4(dotted[2]!);
    if (v4 === undefined) return undefined;
    body = `${dotted[1]}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const [left, right] = body.includes('::') ? body.split('::') : [body, undefined];
  const groups = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const head = groups(left);
  const rest = groups(right);
  const missing = 8 - head.length - rest.length;
  if (right === undefined ? missing !== 0 : missing < 0) return undefined;
  return [...head, ...Array<number>(right === undefined ? 0 : missing).fill(0), ...rest];
}

function ipv4Text(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

function inV4(value: number, base: string, prefix: number): boolean {
  const size = 2 ** (32 - prefix);
  return Math.floor(value / size) === Math.floor(parseIpv4(base)! / size);
}

export function ipv4Class(value: number): AddressClass {
  if (inV4(value, '0.0.0.0', 8)) return 'unspecified';
  if (inV4(value, '127.0.0.0', 8)) return 'loopback';
  if (inV4(value, '169.254.0.0', 16)) return 'link-local';
  if (inV4(value, '10.0.0.0', 8) || inV4(value, '172.16.0.0', 12) || inV4(value, '192.168.0.0', 16)) return 'private';
  // carrier-grade NAT and the benchmarking range reach other machines of the operator's network, not the internet
  if (inV4(value, '100.64.0.0', 10) || inV4(value, '198.18.0.0', 15)) return 'private';
  // IETF protocol assignments, documentation ranges, multicast, the old class E and broadcast
  if (inV4(value, '192.0.0.0', 24) || inV4(value, '192.0.2.0', 24) || inV4(value, '198.51.100.0', 24) || inV4(value, '203.0.113.0', 24)) return 'reserved';
  if (inV4(value, '224.0.0.0', 4) || inV4(value, '240.0.0.0', 4)) return 'reserved';
  return 'public';
}

/** The IPv4 address an IPv6 one carries and hands to an IPv4 host: mapped, compatible, NAT64 (64:ff9b::/96) and 6to4 (2002::/16). */
function embeddedIpv4(g: readonly number[]): number | undefined {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last32 = g[6]! * 65536 + g[7]!;
  if (zeros(0, 5) && g[5] === 0xffff) return last32; // ::ffff:a.b.c.d
  if (zeros(0, 6) && last32 > 1) return last32; // ::a.b.c.d (deprecated compatible form; ::1 and :: are not)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return last32; // NAT64 well-known prefix
  if (g[0] === 0x2002) return g[1]! * 65536 + g[2]!; // 6to4
  return undefined;
}

function ipv6Text(g: readonly number[]): string {
  // the longest run of zero groups (two or more) becomes "::", as inet_ntop writes it
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = g.map((x) => x.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}

function ipv6Class(g: readonly number[]): AddressClass {
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  const first = g[0]!;
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfec0) return 'private'; // the old site-local fec0::/10
  if ((first & 0xff00) === 0xff00) return 'reserved'; // multicast
  if (first === 0x2001 && g[1] === 0x0db8) return 'reserved'; // documentation
  return 'public';
}

/**
 * An IP address literal in any spelling (IPv4 in inet_aton's forms, IPv6 with or without brackets and zone), or
 * undefined when `host` is a name. An IPv4 address carried in IPv6 is returned as that IPv4 address.
 */
export function parseAddress(host: string): ParsedAddress | undefined {
  const v4 = /^[0-9a-fx.]+$/i.test(host) ? parseIpv4(host) : undefined;
  if (v4 !== undefined) return { family: 4, address: ipv4Text(v4), class: ipv4Class(v4) };
  const v6 = parseIpv6(host);
  if (!v6) return undefined;
  const carried = embeddedIpv4(v6);
  if (carried !== undefined) return { family: 4, address: ipv4Text(carried), class: ipv4Class(carried) };
  return { family: 6, address: ipv6Text(v6), class: ipv6Class(v6) };
}

/** The class of an address literal; undefined for a name (resolve it first). */
export function addressClass(host: string): AddressClass | undefined {
  return parseAddress(host)?.class;
}

/** What each class is, in words a refusal can quote. */
export const ADDRESS_CLASS_WORDS: Readonly<Record<AddressClass, string>> = Object.freeze({
  public: 'a public address',
  loopback: 'a loopback address (this machine)',
  private: 'a private-network address',
  'link-local': 'a link-local address (where clouds serve instance metadata)',
  unspecified: 'the unspecified address (it reaches this machine)',
  reserved: 'a reserved address (multicast, broadcast or documentation)',
});
