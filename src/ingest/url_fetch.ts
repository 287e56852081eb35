/**
 * @module Fetches a URL for ingestion: http(s) only, every hop's address checked against the
 * SSRF policy, redirects followed by hand, a time limit and a byte cap on the body.
 *
 * Known limitation (DNS rebinding): the host is resolved and checked here, then `fetch` resolves
 * it again on its own. A hostile DNS server can answer the check with a public address and the
 * connection with a private one. Closing the window needs connecting to the checked address
 * itself (with the original Host header and TLS name), which Deno's fetch does not offer.
 */
import { EngramError } from "../core/errors.ts";
import {
  HOST_PATTERN_FORMS,
  type HostPattern,
  hostPatternAllows,
  hostPatternEntry,
  parseHostPattern,
} from "../core/host_pattern.ts";
import { VERSION } from "../version.ts";
import { blockedReason, isBlockedHostname, normalizeHost, parseIp } from "./address_policy.ts";

/** Options for `fetchUrl`. */
export interface FetchOptions {
  /**
   * Hosts fetched even when their address is blocked: `host` (any port), `host:port` or
   * `[ipv6]:port` — names as written in URLs, or IPs.
   */
  allowHosts: readonly string[];
  /** A flag that allows a host for one run, named in refusals (the operator CLI's `--allow-host`). */
  allowFlag?: string;
  /** Time limit for the whole fetch, redirects and body included (default 15000 ms). */
  timeoutMs?: number;
  /** Body cap in bytes (default 5 MiB). */
  maxBytes?: number;
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number;
  /** Cancels the fetch. */
  signal?: AbortSignal;
  /** Resolves a host name to IP addresses (default: DNS A and AAAA); tests substitute it. */
  resolve?: (host: string) => Promise<string[]>;
}

/** A fetched response body. */
export interface FetchedBody {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  contentType: string;
  bytes: Uint8Array;
}

/** Default body cap: 5 MiB, (docs/tools.md#limits). */
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const HEADERS = {
  "user-agent": `engram/${VERSION} (+memory ingestion)`,
  accept: "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5",
};

/** State shared by every hop of one fetch. */
interface FetchContext {
  readonly start: string;
  readonly allow: readonly HostPattern[];
  readonly allowFlag?: string;
  readonly signal: AbortSignal;
  readonly timeout: AbortSignal;
  readonly timeoutMs: number;
  readonly userSignal?: AbortSignal;
  readonly resolve: (host: string) => Promise<string[]>;
}

/** Human size for messages: "5 MiB", "64 KiB" or bytes. */
function formatSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Parses a URL and refuses schemes other than http and https. */
function parseHttpUrl(text: string, context: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new EngramError("invalid_argument", `not a valid URL${context}: ${text}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new EngramError(
      "invalid_argument",
      `unsupported URL scheme "${url.protocol}"${context}: only http and https URLs are fetched`,
    );
  }
  return url;
}

/** DNS A and AAAA lookup; one family missing is fine, both failing is not. */
async function resolveDns(host: string, signal?: AbortSignal): Promise<string[]> {
  const results = await Promise.allSettled([
    Deno.resolveDns(host, "A", { signal }),
    Deno.resolveDns(host, "AAAA", { signal }),
  ]);
  const addresses = results.flatMap((r) => r.status === "fulfilled" ? r.value : []);
  if (addresses.length > 0) return addresses;
  const failure = results.find((r) => r.status === "rejected");
  throw failure ? failure.reason : new Error("no A or AAAA records");
}

/** Turns an abort into the right error: the time limit, or the caller's cancellation. */
function abortError(ctx: FetchContext, url: string, cause: unknown): EngramError {
  if (ctx.timeout.aborted) {
    return new EngramError(
      "provider_unavailable",
      `timed out after ${ctx.timeoutMs} ms fetching ${url}`,
      { cause },
    );
  }
  const reason = ctx.userSignal?.reason;
  if (reason instanceof EngramError) return reason;
  return new EngramError("provider_unavailable", `fetching ${url} was cancelled`, { cause });
}

/** Resolves the host (IP literals as is) under the fetch's signal. */
async function addressesOf(ctx: FetchContext, url: URL, host: string): Promise<string[]> {
  if (parseIp(host)) return [host];
  let addresses: string[];
  try {
    // A custom resolver takes no signal, so the race keeps the time limit in force.
    addresses = await new Promise<string[]>((resolve, reject) => {
      const onAbort = () => reject(ctx.signal.reason);
      if (ctx.signal.aborted) return onAbort();
      ctx.signal.addEventListener("abort", onAbort, { once: true });
      ctx.resolve(host).then(resolve, reject).finally(() =>
        ctx.signal.removeEventListener("abort", onAbort)
      );
    });
  } catch (err) {
    if (ctx.signal.aborted) throw abortError(ctx, url.href, err);
    const detail = err instanceof Error ? err.message : String(err);
    throw new EngramError("provider_unavailable", `cannot resolve host ${host}: ${detail}`, {
      cause: err,
    });
  }
  // An empty answer would let fetch resolve (and connect) unchecked, so it fails like no answer.
  if (addresses.length === 0) {
    throw new EngramError("provider_unavailable", `cannot resolve host ${host}: no addresses`);
  }
  return addresses;
}

/** Refuses a URL whose host is blocked by name or resolves to any blocked address. */
async function checkAddress(ctx: FetchContext, url: URL): Promise<void> {
  const host = normalizeHost(url.hostname.replace(/^\[|\]$/g, ""));
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  const allows = (h: string) => ctx.allow.some((p) => hostPatternAllows(p, { host: h, port }));
  if (allows(host)) return;
  const entry = hostPatternEntry(host, port);
  const hint = ctx.allowFlag
    ? `allow it for this run with ${ctx.allowFlag} ${entry}, or always with ingest.allowed_url_hosts in the config`
    : `allow it with ingest.allowed_url_hosts in the config (e.g. "${entry}")`;
  if (isBlockedHostname(host)) {
    throw new EngramError(
      "forbidden",
      `refusing to fetch ${url.href}: ${host} is a local or cloud metadata host name; ${hint}`,
    );
  }
  for (const address of await addressesOf(ctx, url, host)) {
    const normalized = normalizeHost(address);
    const reason = blockedReason(normalized);
    if (reason && !allows(normalized)) {
      const via = normalized === host ? "" : ` (${host} resolves to it)`;
      throw new EngramError(
        "forbidden",
        `refusing to fetch ${url.href}: ${normalized} is ${reason} address${via}; ${hint}`,
      );
    }
  }
}

/** One request, with network failures turned into EngramErrors. */
async function request(ctx: FetchContext, url: URL): Promise<Response> {
  try {
    return await fetch(url, { redirect: "manual", signal: ctx.signal, headers: HEADERS });
  } catch (err) {
    if (ctx.signal.aborted) throw abortError(ctx, url.href, err);
    const detail = err instanceof Error ? err.message : String(err);
    throw new EngramError(
      "provider_unavailable",
      `cannot connect to ${url.host} (fetching ${url.href}): ${detail}`,
      { cause: err },
    );
  }
}

/** Maps a non-2xx, non-redirect status to its error. */
function statusError(url: string, response: Response): EngramError {
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  const message = `${url} returned ${status}`;
  if (response.status === 404 || response.status === 410) {
    return new EngramError("not_found", message);
  }
  if (response.status === 429) return new EngramError("rate_limited", message);
  if (response.status >= 500) return new EngramError("provider_unavailable", message);
  return new EngramError("invalid_argument", message);
}

/** Reads the body, stopping (and cancelling the stream) as soon as it passes `maxBytes`. */
async function readCapped(
  ctx: FetchContext,
  url: string,
  response: Response,
  maxBytes: number,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new EngramError(
      "file_too_large",
      `response body of ${url} exceeds ${
        formatSize(maxBytes)
      }; download it and use memory_ingest_file instead`,
    );
  // Content-Length only lets a too-big body fail early; the count below is what enforces the cap.
  const declared = Number(response.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof EngramError) throw err;
    if (ctx.signal.aborted) throw abortError(ctx, url, err);
    const detail = err instanceof Error ? err.message : String(err);
    throw new EngramError("provider_unavailable", `reading ${url} failed: ${detail}`, {
      cause: err,
    });
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** A parsed allowlist entry, its host spelt as checkAddress spells hosts. */
function allowPattern(entry: string): HostPattern {
  const pattern = parseHostPattern(entry);
  if (!pattern) {
    throw new EngramError(
      "invalid_argument",
      `allowed host "${entry}" is not ${HOST_PATTERN_FORMS}`,
    );
  }
  return { ...pattern, host: normalizeHost(pattern.host) };
}

/**
 * Fetches an http(s) URL for ingestion, refusing blocked addresses on every redirect hop,
 * enforcing the time limit and the body cap; failures are EngramErrors.
 */
export async function fetchUrl(url: string, options: FetchOptions): Promise<FetchedBody> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const ctx: FetchContext = {
    start: url,
    allow: options.allowHosts.map(allowPattern),
    allowFlag: options.allowFlag,
    signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
    timeout,
    timeoutMs,
    userSignal: options.signal,
    resolve: options.resolve ?? ((host) => resolveDns(host, ctx.signal)),
  };
  let current = parseHttpUrl(url, "");
  const visited = new Set<string>();
  for (let redirects = 0;; redirects++) {
    const key = current.href.replace(/#.*$/, "");
    if (visited.has(key)) {
      throw new EngramError("invalid_argument", `redirect loop at ${key} (starting at ${url})`);
    }
    visited.add(key);
    await checkAddress(ctx, current);
    const response = await request(ctx, current);
    if (REDIRECT_STATUSES.has(response.status)) {
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get("location");
      if (!location) {
        throw new EngramError(
          "invalid_argument",
          `${current.href} returned ${response.status} without a Location header`,
        );
      }
      if (redirects >= maxRedirects) {
        throw new EngramError(
          "invalid_argument",
          `too many redirects (${maxRedirects}) fetching ${url}; the last pointed to ${location}`,
        );
      }
      current = parseHttpUrl(
        URL.canParse(location, current) ? new URL(location, current).href : location,
        ` (redirected from ${current.href})`,
      );
      continue;
    }
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel().catch(() => {});
      throw statusError(current.href, response);
    }
    const bytes = await readCapped(ctx, current.href, response, maxBytes);
    return {
      url: current.href,
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      bytes,
    };
  }
}
