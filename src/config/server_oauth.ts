/**
 * @module The `server.oauth` and `server.trusted_proxies` settings (docs/configuration.md#server):
 * engram serve as an OAuth authorization server, and which peers may name the client's address.
 */
import { isLoopbackHost } from "../core/loopback.ts";
import { z } from "zod";
import { wholeNumber } from "./number_setting.ts";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** `server.oauth`: off by default, since an open registration endpoint is a choice (docs/connectors.md). */
export const ServerOAuthSchema = z.strictObject({
  enabled: z.boolean().default(false),
  access_token_ttl_ms: wholeNumber(60_000, 7 * DAY_MS).default(HOUR_MS)
    .describe("How long an access token issued by engram's authorization server lives"),
  refresh_token_ttl_ms: wholeNumber(60_000, 365 * DAY_MS).default(30 * DAY_MS)
    .describe("How long a refresh token lives unused; each refresh rotates it"),
  registration_ttl_ms: wholeNumber(60_000, 3650 * DAY_MS).default(30 * DAY_MS)
    .describe("A client registration unused this long is removed"),
}).prefault({});

/** Whether `text` is an IPv4 or IPv6 address, or one with a `/prefix` (CIDR). */
export function isAddressOrCidr(text: string): boolean {
  const [address, prefix, extra] = text.trim().split("/");
  if (extra !== undefined || address === undefined) return false;
  const v4 = /^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}$/.test(address) &&
    address.split(".").every((o) => Number(o) <= 255);
  const v6 = !v4 && address.includes(":") && URL.canParse(`http://[${address}]/`);
  if (!v4 && !v6) return false;
  if (prefix === undefined) return true;
  return /^(0|[1-9]\d{0,2})$/.test(prefix) && Number(prefix) <= (v4 ? 32 : 128);
}

/** `server.trusted_proxies`: peers whose `X-Forwarded-For` names the client (addresses or CIDRs). */
export const TrustedProxiesSchema = z.array(
  z.string().refine(isAddressOrCidr, {
    error: (issue) =>
      `"${issue.input}" is not an IP address or CIDR range (e.g. 127.0.0.1, 10.0.0.0/8, ::1)`,
  }),
).default([]).describe("Reverse proxies whose X-Forwarded-For is believed (addresses or CIDRs)");

/**
 * Why `server.oauth.enabled: true` cannot work with this `public_url`, naming the fix; null when it
 * can. The issuer must be an https origin (http only on a loopback host): tokens and codes travel
 * through it, and clients compare it exactly.
 */
export function oauthPublicUrlProblem(publicUrl: string | undefined): string | null {
  if (publicUrl === undefined) {
    return "needs server.public_url, the https URL clients reach engram at (e.g. https://memory.example.com); see docs/connectors.md";
  }
  const url = new URL(publicUrl);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
    return `needs an https server.public_url, not ${publicUrl} (http only on a loopback host such as http://127.0.0.1:8787); put engram behind a proxy that terminates TLS (docs/http.md#behind-a-proxy)`;
  }
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "") {
    return `needs server.public_url to be an origin without a path, query or credentials (e.g. ${url.origin}), not ${publicUrl}: it is the OAuth issuer`;
  }
  return null;
}
