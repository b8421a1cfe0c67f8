// Literal IP address parsing and the public-unicast check of the webhook SSRF guard.
// The grammar is checked here: ipaddr.js alone also accepts octal/hex/short IPv4 forms, zone
// ids, and reads "::1.2.3.4" as IPv4-mapped. ipaddr.js does canonical output and range lookup.
import ipaddr from 'ipaddr.js';

export interface ParsedIp {
  canonical: string;
  version: 4 | 6;
}

// Dotted quad of decimal octets 0-255 without leading zeros ("010" could be read as octal).
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)';
const IPV4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

function parseIpv4Octets(input: string): number[] | null {
  return IPV4.test(input) ? input.split('.').map(Number) : null;
}

function parseGroups(text: string): number[] | null {
  if (text === '') return [];
  const groups = text.split(':');
  if (!groups.every((g) => HEX_GROUP.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

// RFC 4291 section 2.2 text forms, including one "::" and a trailing dotted-quad.
function parseIpv6Parts(input: string): number[] | null {
  if (!/^[0-9A-Fa-f:.]+$/.test(input)) return null;
  let text = input;
  let tail: number[] = [];
  if (text.includes('.')) {
    const colon = text.lastIndexOf(':');
    if (colon < 0) return null;
    const octets = parseIpv4Octets(text.slice(colon + 1));
    if (octets === null) return null;
    tail = [(octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!];
    // Keep "::" intact when the dotted quad follows it directly ("::1.2.3.4").
    text = text.endsWith('::', colon + 1) ? text.slice(0, colon + 1) : text.slice(0, colon);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  if (halves.length === 1) {
    const groups = parseGroups(text);
    if (groups === null || text === '') return null;
    const parts = [...groups, ...tail];
    return parts.length === 8 ? parts : null;
  }
  const head = parseGroups(halves[0]!);
  const rest = parseGroups(halves[1]!);
  if (head === null || rest === null) return null;
  const known = head.length + rest.length + tail.length;
  // "::" stands for at least one zero group.
  if (known > 7) return null;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
}

export function parseIpLiteral(input: string): ParsedIp | null {
  const v4 = parseIpv4Octets(input);
  if (v4 !== null) return { canonical: v4.join('.'), version: 4 };
  const v6 = parseIpv6Parts(input);
  if (v6 !== null) return { canonical: new ipaddr.IPv6(v6).toRFC5952String(), version: 6 };
  return null;
}

/** The canonical form of an IP literal; what is not one stays as it is (schemas refuse it first). */
export function canonicalIp(literal: string): string {
  return parseIpLiteral(literal)?.canonical ?? literal;
}

// IPv4 ranges that are globally reachable unicast (AS112 and AMT are anycast services).
const PUBLIC_V4_RANGES = new Set(['unicast', 'as112', 'amt']);
const PUBLIC_V6_RANGES = new Set(['unicast', 'as112v6', 'amt']);

function isPublicV4(addr: ipaddr.IPv4): boolean {
  return PUBLIC_V4_RANGES.has(addr.range());
}

function embeddedV4(parts: number[], index: number): ipaddr.IPv4 {
  const hi = parts[index]!;
  const lo = parts[index + 1]!;
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

// Whether a connection to this address would leave for the public internet. Used by the
// webhook SSRF guard, so anything unclear counts as not public.
export function isPublicUnicastIp(canonical: string): boolean {
  const parsed = parseIpLiteral(canonical);
  if (parsed === null) return false;
  if (parsed.version === 4) return isPublicV4(ipaddr.IPv4.parse(parsed.canonical));
  const addr = new ipaddr.IPv6(parseIpv6Parts(canonical)!);
  const range = addr.range();
  switch (range) {
    // These reach the embedded IPv4 address (mapped, SIIT-translated, NAT64, 6to4 relay).
    case 'ipv4Mapped':
    case 'rfc6145':
      return isPublicV4(embeddedV4(addr.parts, 6));
    case 'rfc6052':
      // Only the well-known NAT64 prefix 64:ff9b::/96; the local-use 64:ff9b:1::/48 is private.
      return addr.parts[2] === 0 && isPublicV4(embeddedV4(addr.parts, 6));
    case '6to4':
      return isPublicV4(embeddedV4(addr.parts, 1));
    default:
      // Only global unicast 2000::/3 is routable; ipaddr.js calls e.g. ::1.2.3.4 "unicast" too.
      return PUBLIC_V6_RANGES.has(range) && (addr.parts[0]! & 0xe000) === 0x2000;
  }
}

/** Whether the address is this host itself: 127.0.0.0/8, ::1, or IPv4-mapped loopback. */
export function isLoopbackIp(canonical: string): boolean {
  const parsed = parseIpLiteral(canonical);
  return parsed !== null && ipaddr.process(parsed.canonical).range() === 'loopback';
}

/**
 * One spelling per client address, for limits kept per client: an IPv4 client seen through a
 * dual-stack socket (`::ffff:10.0.0.1`) is `10.0.0.1`. Anything that is not an IP literal stays as given.
 */
export function clientAddressKey(raw: string): string {
  const parsed = parseIpLiteral(raw);
  if (parsed === null) return raw;
  const address = ipaddr.process(parsed.canonical);
  return address.kind() === 'ipv4' ? address.toString() : parsed.canonical;
}
