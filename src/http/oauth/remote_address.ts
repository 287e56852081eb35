/**
 * @module Who is asking, by network address: the peer, or behind a trusted reverse proxy the
 * address it names in `X-Forwarded-For` (docs/connectors.md#rate-limits). The OAuth endpoints that
 * anyone may call without a token are rate-limited by it.
 */

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
type Bytes = Uint8Array;

/** A parsed `server.trusted_proxies` entry. */
interface Cidr {
  bytes: Bytes;
  bits: number;
}

/** IPv4 dotted quad, IPv6 (URL-canonicalised, zone dropped); IPv4-mapped IPv6 comes back as IPv4. */
export function parseAddress(text: string): Bytes | null {
  const t = text.trim().replace(/^\[(.*)\]$/, "$1");
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(t)) {
    const octets = t.split(".").map(Number);
    return octets.every((o) => o <= 255) ? Uint8Array.from(octets) : null;
  }
  const bare = t.replace(/%.*$/, "");
  if (!bare.includes(":") || !URL.canParse(`http://[${bare}]/`)) return null;
  // The URL parser writes every IPv6 address as lowercase hex groups with at most one `::`.
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.split("::");
  const groups = (s: string | undefined) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const h = groups(head), tl = groups(tail);
  const all = tail === undefined
    ? h
    : [...h, ...new Array(8 - h.length - tl.length).fill(0), ...tl];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  const mapped = bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff &&
    bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

/** Parses `server.trusted_proxies` (validated by the config schema already). */
export function parseTrustedProxies(entries: readonly string[]): Cidr[] {
  return entries.flatMap((entry) => {
    const [address, prefix] = entry.trim().split("/");
    const bytes = parseAddress(address);
    if (!bytes) return [];
    return [{ bytes, bits: prefix === undefined ? bytes.length * 8 : Number(prefix) }];
  });
}

function inCidr(address: Bytes, cidr: Cidr): boolean {
  if (address.length !== cidr.bytes.length) return false;
  for (let i = 0; i * 8 < cidr.bits; i++) {
    const take = Math.min(8, cidr.bits - i * 8);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((address[i] & mask) !== (cidr.bytes[i] & mask)) return false;
  }
  return true;
}

/** Whether `address` is one of the trusted proxies. */
export function isTrustedProxy(address: string, proxies: readonly Cidr[]): boolean {
  const bytes = parseAddress(address);
  return bytes !== null && proxies.some((p) => inCidr(bytes, p));
}

/**
 * The client's address: the peer's, unless the peer is a trusted proxy, in which case
 * `X-Forwarded-For` is read from the right (each proxy appends the address it saw), skipping
 * trusted proxies, up to the first address that is not one. An entry a client wrote itself sits
 * to the left of what the trusted proxies appended, so it is never reached.
 */
export function clientAddress(
  req: Request,
  options: { peer: string; trustedProxies: readonly Cidr[] },
): string {
  let current = options.peer;
  if (!isTrustedProxy(current, options.trustedProxies)) return current;
  const forwarded = (req.headers.get("x-forwarded-for") ?? "").split(",").map((s) => s.trim())
    .filter((s) => s !== "");
  while (forwarded.length > 0 && isTrustedProxy(current, options.trustedProxies)) {
    const next = forwarded.pop()!;
    if (parseAddress(next) === null) break;
    current = next;
  }
  return current;
}

/**
 * The rate-limit key of an address: IPv6 addresses by their /64, since one host commonly holds a
 * whole /64 and could otherwise take a fresh bucket per request.
 */
export function addressKey(address: string): string {
  const bytes = parseAddress(address);
  if (!bytes) return address;
  if (bytes.length === 4) return bytes.join(".");
  const groups = Array.from({ length: 4 }, (_, i) => ((bytes[i * 2] << 8) | bytes[i * 2 + 1]));
  return `${groups.map((g) => g.toString(16)).join(":")}::/64`;
}
