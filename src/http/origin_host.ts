/** @module DNS-rebinding protection: the Origin and Host headers every request must pass. */
import { isLoopbackHost } from "../core/loopback.ts";
import { jsonError } from "./responses.ts";

/** Which Origin and Host values a server accepts. */
export interface OriginHostPolicy {
  /** The server listens on a loopback address only. */
  loopback: boolean;
  /** Exact origins allowed besides the loopback defaults (`scheme://host[:port]`). */
  allowedOrigins: readonly string[];
  /** Host header values allowed besides the defaults (`name` or `name:port`). */
  allowedHosts: readonly string[];
  /** Decisions by header value: clients send the same Host (and Origin) on every request. */
  seen: Map<string, boolean>;
}

/** Distinct Host/Origin values remembered at most; a flood of new ones only clears the memo. */
const SEEN_LIMIT = 256;

/** The policy for a listen address and the configured allowlists. */
export function originHostPolicy(
  host: string,
  options: { allowedOrigins: readonly string[]; allowedHosts: readonly string[] },
): OriginHostPolicy {
  return { loopback: isLoopbackHost(host), ...options, seen: new Map() };
}

/**
 * The 403 for a foreign Origin or Host, or null when both are acceptable. `skipOrigin`: only the
 * Host is checked, for endpoints that serve any origin by design (docs/connectors.md#cors).
 * `ownOrigin`: an origin also admitted for this request — the console's own, whose pages post from
 * wherever engram is reached; once the Host check passed that is no rebinding
 * (docs/console.md#security-model).
 */
export function checkOriginHost(
  req: Request,
  policy: OriginHostPolicy,
  options: { skipOrigin?: boolean; ownOrigin?: string } = {},
): Response | null {
  const host = req.headers.get("host");
  if (host !== null && !remembered(policy, `h ${host}`, () => hostAllowed(host, policy))) {
    return jsonError(403, `Host header not allowed: ${host}`);
  }
  if (options.skipOrigin) return null;
  const origin = req.headers.get("origin");
  if (origin !== null && origin === options.ownOrigin) return null;
  // No Origin means no browser page is driving the request; only a present one can be a rebinding.
  if (origin !== null && !remembered(policy, `o ${origin}`, () => originAllowed(origin, policy))) {
    return jsonError(403, `Origin not allowed: ${origin}`);
  }
  return null;
}

function remembered(policy: OriginHostPolicy, key: string, decide: () => boolean): boolean {
  let ok = policy.seen.get(key);
  if (ok === undefined) {
    if (policy.seen.size >= SEEN_LIMIT) policy.seen.clear();
    ok = decide();
    policy.seen.set(key, ok);
  }
  return ok;
}

function hostAllowed(host: string, policy: OriginHostPolicy): boolean {
  const lower = host.toLowerCase();
  if (policy.allowedHosts.some((h) => h.toLowerCase() === lower)) return true;
  const name = hostname(lower);
  if (name === null) return false;
  if (policy.allowedHosts.some((h) => h.toLowerCase() === name)) return true;
  if (policy.loopback) return isLoopbackHost(name);
  // Bound to a public address without a configured list: every name may reach it; tokens guard it.
  return policy.allowedHosts.length === 0;
}

function originAllowed(origin: string, policy: OriginHostPolicy): boolean {
  if (policy.allowedOrigins.includes(origin)) return true;
  if (!policy.loopback) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

function hostname(host: string): string | null {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}
