/**
 * @module Fetching a client-ID metadata document (MCP 2025-11-25; docs/connectors.md#security-model):
 * https only, through URL ingestion's address policy (no loopback, private or metadata addresses),
 * no redirects, `200` only, small and quick.
 */
import { EngramError } from "../../core/errors.ts";
import { type FetchClientMetadata, OAuthError } from "../../core/oauth/authorization_types.ts";

/** A fetch that applies URL ingestion's address policy on every hop, with a byte cap and a time limit. */
export type PolicyFetch = (
  url: string,
  options: { maxBytes: number; timeoutMs: number; maxRedirects: number },
) => Promise<{ status: number; contentType: string; bytes: Uint8Array }>;

/**
 * The most a document may weigh. The draft suggests 5 KB; real clients' documents (Claude.ai's
 * among them) have gone past that, so the cap is a little wider.
 */
export const CLIENT_METADATA_MAX_BYTES = 64 * 1024;
/** How long fetching one may take. */
export const CLIENT_METADATA_TIMEOUT_MS = 5_000;

/** The client-ID metadata fetcher the authorization server is given. */
export function clientMetadataFetcher(
  fetchWithPolicy: PolicyFetch,
  options: { maxBytes?: number; timeoutMs?: number } = {},
): FetchClientMetadata {
  const maxBytes = options.maxBytes ?? CLIENT_METADATA_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? CLIENT_METADATA_TIMEOUT_MS;
  return async (url) => {
    // The authorization server names the URL when it reports this; the message is the reason.
    const refuse = (why: string) => new OAuthError("invalid_client", why);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refuse("not a URL");
    }
    if (parsed.protocol !== "https:" || parsed.pathname === "/" || parsed.hash !== "") {
      throw refuse("a client id URL must be https, with a path and no fragment");
    }
    let fetched;
    try {
      // Redirects are not followed: the document must be served at its own URL.
      fetched = await fetchWithPolicy(url, { maxBytes, timeoutMs, maxRedirects: 0 });
    } catch (err) {
      if (!(err instanceof EngramError)) throw err;
      if (err.code === "forbidden") {
        throw refuse(
          "its host is a loopback, private or metadata address, which engram never fetches",
        );
      }
      if (err.code === "file_too_large") throw refuse(`larger than ${maxBytes} bytes`);
      if (/too many redirects/.test(err.message)) {
        throw refuse("it redirects; serve it at its own URL");
      }
      throw refuse(`could not be fetched (${err.message})`);
    }
    if (fetched.status !== 200) throw refuse(`answered ${fetched.status}, not 200`);
    const type = fetched.contentType.split(";")[0].trim().toLowerCase();
    if (type !== "application/json" && !type.endsWith("+json")) {
      throw refuse(`served as ${type || "no type"}, not application/json`);
    }
    try {
      return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fetched.bytes));
    } catch {
      throw refuse("not JSON");
    }
  };
}
