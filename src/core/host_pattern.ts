/**
 * @module Host allowlist entries for URL ingestion (`ingest.allowed_url_hosts`, `--allow-host`):
 * `host` allows every port of the host, `host:port` and `[ipv6]:port` only that port.
 */

/** A parsed entry: the host as a URL spells it (lowercase, IPv6 without brackets), maybe a port. */
export interface HostPattern {
  host: string;
  port?: number;
}

/** The accepted forms, for messages that refuse an entry. */
export const HOST_PATTERN_FORMS =
  "host, host:port or [ipv6]:port (e.g. docs.internal, 127.0.0.1:8931, [::1]:8931)";

/** Parses an entry; null when it is none of the accepted forms. */
export function parseHostPattern(entry: string): HostPattern | null {
  const text = entry.trim();
  let host: string;
  let port: string | undefined;
  const bracketed = text.match(/^\[([^\]]+)\](?::(\d{1,5}))?$/);
  if (bracketed) [host, port] = [`[${bracketed[1]}]`, bracketed[2]];
  else if (text.split(":").length > 2) host = `[${text}]`; // a bare IPv6 address: no port
  else {
    const named = text.match(/^([^:[\]]+)(?::(\d{1,5}))?$/);
    if (!named) return null;
    [host, port] = [named[1], named[2]];
  }
  // Anything a URL would read as more than a host (user info, path, query) is not one.
  if (/[\s/?#@\\%]/.test(host)) return null;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}/`).hostname;
  } catch {
    return null;
  }
  if (port === undefined) return { host: unbracket(hostname) };
  const number = Number(port);
  if (number < 1 || number > 65535) return null;
  return { host: unbracket(hostname), port: number };
}

/** Whether a pattern allows `host` (spelt as parseHostPattern spells it) on `port`. */
export function hostPatternAllows(
  pattern: HostPattern,
  target: { host: string; port: number },
): boolean {
  return pattern.host === target.host &&
    (pattern.port === undefined || pattern.port === target.port);
}

/** The entry that allows exactly `host` on `port`, as an operator would write it. */
export function hostPatternEntry(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function unbracket(host: string): string {
  return host.replace(/^\[|\]$/g, "");
}
