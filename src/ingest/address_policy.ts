/**
 * @module Which network addresses URL ingestion must not reach (SSRF guard): loopback, private,
 * link-local, metadata and other non-public ranges, in IPv4, IPv6 and IPv4-in-IPv6 forms.
 */

/** A parsed IP address: 4 bytes for IPv4, 16 for IPv6. */
export interface IpAddress {
  version: 4 | 6;
  bytes: Uint8Array;
}

/** Host names of cloud metadata services, refused by name before any lookup. */
const METADATA_HOSTS: ReadonlySet<string> = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.azure.internal",
  "instance-data",
  "instance-data.ec2.internal",
]);

/** An IPv4 range `[first octets, prefix length, reason]`, checked in order. */
type Range4 = readonly [readonly number[], number, string];

const V4_RANGES: readonly Range4[] = [
  [[255, 255, 255, 255], 32, "a broadcast"],
  [[169, 254, 169, 254], 32, "a link-local (cloud metadata)"],
  [[0], 8, "an unspecified"],
  [[10], 8, "a private"],
  [[100, 64], 10, "a shared (CGNAT)"],
  [[127], 8, "a loopback"],
  [[169, 254], 16, "a link-local"],
  [[172, 16], 12, "a private"],
  [[192, 0, 0], 24, "a reserved (IETF protocol)"],
  [[192, 0, 2], 24, "a reserved (documentation)"],
  [[192, 168], 16, "a private"],
  [[198, 18], 15, "a reserved (benchmarking)"],
  [[198, 51, 100], 24, "a reserved (documentation)"],
  [[203, 0, 113], 24, "a reserved (documentation)"],
  [[224], 4, "a multicast"],
  [[240], 4, "a reserved"],
];

/** Parses a dotted-quad IPv4 address (four decimal octets, no leading-zero octal forms). */
function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i];
    // Leading zeros are refused: some resolvers read "010" as octal, so its meaning is ambiguous.
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    bytes[i] = n;
  }
  return bytes;
}

/** Parses the groups of one side of an IPv6 `::`; an IPv4 tail counts as two groups. */
function parseGroups(text: string, allowV4Tail: boolean): number[] | null {
  if (text === "") return [];
  const parts = text.split(":");
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (allowV4Tail && i === parts.length - 1 && part.includes(".")) {
      const v4 = parseIpv4(part);
      if (!v4) return null;
      groups.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
    } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}

/** Parses an IPv6 address, including `::` compression, an IPv4 tail and a `%zone` suffix. */
function parseIpv6(text: string): Uint8Array | null {
  const address = text.replace(/%[^%]+$/, "");
  const halves = address.split("::");
  if (halves.length > 2) return null;
  let groups: number[];
  if (halves.length === 2) {
    const head = parseGroups(halves[0], false);
    const tail = parseGroups(halves[1], true);
    if (!head || !tail || head.length + tail.length > 7) return null;
    groups = [...head, ...new Array(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    const all = parseGroups(address, true);
    if (!all || all.length !== 8) return null;
    groups = all;
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

/** Parses an IPv4 or IPv6 literal (brackets allowed, as in URL hosts); null when it is not one. */
export function parseIp(text: string): IpAddress | null {
  const trimmed = text.trim();
  const unbracketed = trimmed.startsWith("[") && trimmed.endsWith("]")
    ? trimmed.slice(1, -1)
    : trimmed;
  if (unbracketed.includes(":")) {
    const bytes = parseIpv6(unbracketed);
    return bytes ? { version: 6, bytes } : null;
  }
  const bytes = parseIpv4(unbracketed);
  return bytes ? { version: 4, bytes } : null;
}

/** Canonical text of an address: dotted quad, or RFC 5952 compressed lowercase IPv6. */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) return ip.bytes.join(".");
  const groups = Array.from({ length: 8 }, (_, i) => (ip.bytes[i * 2] << 8) | ip.bytes[i * 2 + 1]);
  // RFC 5952: compress the longest run (of at least two) of zero groups, the first on a tie.
  let bestStart = -1, bestLen = 0;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) [bestStart, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
}

/** Whether the first `bits` bits of `bytes` equal those of `prefix` (missing prefix bytes are 0). */
function matchesPrefix(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i * 8 < bits; i++) {
    const take = Math.min(8, bits - i * 8);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[i] & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

function classifyV4(bytes: Uint8Array): string | null {
  for (const [prefix, bits, reason] of V4_RANGES) {
    if (matchesPrefix(bytes, prefix, bits)) return reason;
  }
  return null;
}

/** Classifies the IPv4 address embedded at `offset`, labelled with the embedding it came through. */
function classifyEmbedded(bytes: Uint8Array, offset: number, via: string): string | null {
  const reason = classifyV4(bytes.slice(offset, offset + 4));
  return reason ? `${reason} (${via})` : null;
}

function classifyV6(b: Uint8Array): string | null {
  const zeroUpTo = (n: number) => b.subarray(0, n).every((x) => x === 0);
  if (zeroUpTo(16)) return "an unspecified";
  if (zeroUpTo(15) && b[15] === 1) return "a loopback";
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT) and ::a.b.c.d (deprecated compatible) all
  // reach the IPv4 address on dual-stack hosts, so they are judged by it.
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) {
    return classifyEmbedded(b, 12, "IPv4-mapped");
  }
  if (zeroUpTo(8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0) {
    return classifyEmbedded(b, 12, "IPv4-translated");
  }
  if (zeroUpTo(12)) return classifyEmbedded(b, 12, "IPv4-compatible");
  if (matchesPrefix(b, [0x00, 0x64, 0xff, 0x9b], 96)) return classifyEmbedded(b, 12, "NAT64");
  // The local-use NAT64 prefix may embed the IPv4 address anywhere; it is local by definition.
  if (matchesPrefix(b, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48)) return "a local-use NAT64";
  if (matchesPrefix(b, [0x20, 0x02], 16)) return classifyEmbedded(b, 2, "6to4");
  if (matchesPrefix(b, [0x20, 0x01, 0x00, 0x00], 32)) {
    // Teredo stores the client's IPv4 address inverted in the last 32 bits.
    const client = b.slice(12, 16).map((x) => x ^ 0xff);
    const reason = classifyV4(client);
    return reason ? `${reason} (Teredo)` : null;
  }
  if (matchesPrefix(b, [0x01, 0x00], 64)) return "a reserved (discard-only)";
  if (matchesPrefix(b, [0x20, 0x01, 0x0d, 0xb8], 32)) return "a reserved (documentation)";
  if (matchesPrefix(b, [0xfe, 0x80], 10)) return "a link-local";
  if (matchesPrefix(b, [0xfe, 0xc0], 10)) return "a private (site-local)";
  if (matchesPrefix(b, [0xfc], 7)) return "a unique-local";
  if (matchesPrefix(b, [0xff], 8)) return "a multicast";
  return null;
}

/**
 * Why an address must not be fetched, as "a loopback", "a private", …; null when it is public.
 * Text that is not an IP literal is refused too ("an unrecognized"), so a bad resolver answer
 * fails closed.
 */
export function blockedReason(ip: string): string | null {
  const parsed = parseIp(ip);
  if (!parsed) return "an unrecognized";
  return parsed.version === 4 ? classifyV4(parsed.bytes) : classifyV6(parsed.bytes);
}

/** Whether URL ingestion must refuse this IP address (see `blockedReason`). */
export function isBlockedAddress(ip: string): boolean {
  return blockedReason(ip) !== null;
}

/** Lowercases a host name and drops brackets and a trailing dot, so spellings compare equal. */
export function normalizeHost(host: string): string {
  const lower = host.trim().toLowerCase().replace(/\.$/, "");
  const ip = parseIp(lower);
  return ip ? formatIp(ip) : lower;
}

/**
 * Whether a host name is refused by name: cloud metadata services and `localhost` names, which
 * the OS resolves from /etc/hosts where a DNS check would not see them.
 */
export function isBlockedHostname(host: string): boolean {
  const name = normalizeHost(host);
  return METADATA_HOSTS.has(name) || name === "localhost" || name.endsWith(".localhost");
}
