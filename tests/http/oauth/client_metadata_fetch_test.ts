/**
 * @module Fetching a client-ID metadata document through URL ingestion's address policy
 * (docs/connectors.md#security-model): loopback, private and metadata hosts are refused before any
 * connection, as are plain http, redirects, other statuses, other types and oversized bodies.
 */
import assert from "node:assert/strict";
import { OAuthError } from "../../../src/core/oauth/authorization_types.ts";
import {
  clientMetadataFetcher,
  type PolicyFetch,
} from "../../../src/http/oauth/client_metadata_fetch.ts";
import { fetchUrl } from "../../../src/ingest/url_fetch.ts";

/** The fetcher as `engram serve` wires it: the ingest policy, no allowed hosts. */
const policyFetch: PolicyFetch = (url, o) => fetchUrl(url, { allowHosts: [], ...o });

async function refusal(fetcher: (url: string) => Promise<unknown>, url: string): Promise<string> {
  try {
    await fetcher(url);
  } catch (err) {
    assert.ok(err instanceof OAuthError, String(err));
    assert.equal(err.error, "invalid_client");
    assert.equal(err.options.redirectable, undefined, "never sent back to an unverified client");
    return err.message;
  }
  throw new Error(`${url} was fetched`);
}

Deno.test("client id URLs on loopback, private, link-local and metadata hosts are refused without a connection", async () => {
  const fetcher = clientMetadataFetcher(policyFetch);
  for (
    const url of [
      "https://127.0.0.1/client.json",
      "https://localhost/client.json",
      "https://10.0.0.5/client.json",
      "https://192.168.1.1/client.json",
      "https://[::1]/client.json",
      "https://169.254.169.254/latest/meta-data",
      "https://metadata.google.internal/client.json",
    ]
  ) {
    assert.match(
      await refusal(fetcher, url),
      /its host is a loopback, private or metadata address, which engram never fetches/,
      url,
    );
  }
});

Deno.test("client id URLs must be https with a path and no fragment", async () => {
  const fetcher = clientMetadataFetcher(policyFetch);
  for (
    const url of ["http://example.com/c.json", "https://example.com/", "https://example.com/c#x"]
  ) {
    assert.match(await refusal(fetcher, url), /must be https, with a path and no fragment/, url);
  }
  assert.match(await refusal(fetcher, "not a url"), /not a URL/);
});

/** A loopback server standing in for a client's host, reached through the policy fetch with it allowed. */
async function withDocumentHost(
  handler: (req: Request) => Response,
  run: (fetcher: (url: string) => Promise<unknown>) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  // Only the scheme and host are swapped: the address policy, caps and redirect rule are the real ones.
  const local: PolicyFetch = (url, o) =>
    fetchUrl(url.replace("https://client.example", origin), {
      ...o,
      allowHosts: [`127.0.0.1:${server.addr.port}`],
    });
  try {
    await run(clientMetadataFetcher(local, { maxBytes: 1024 }));
  } finally {
    await server.shutdown();
  }
}

Deno.test("a JSON document served with 200 is returned parsed", async () => {
  const doc = { client_id: "https://client.example/c.json", client_name: "Example" };
  await withDocumentHost(() => Response.json(doc), async (fetcher) => {
    assert.deepEqual(await fetcher("https://client.example/c.json"), doc);
  });
});

Deno.test("a redirect, another status, another type, a non-JSON body or an oversized one is refused by name", async () => {
  await withDocumentHost((req) => {
    const path = new URL(req.url).pathname;
    if (path === "/redirect") return Response.redirect("https://client.example/c.json", 302);
    if (path === "/gone") return new Response("no", { status: 404 });
    if (path === "/html") {
      return new Response("<p>hi</p>", { headers: { "content-type": "text/html" } });
    }
    if (path === "/bad") {
      return new Response("{", { headers: { "content-type": "application/json" } });
    }
    return Response.json({ pad: "x".repeat(2000) });
  }, async (fetcher) => {
    assert.match(
      await refusal(fetcher, "https://client.example/redirect"),
      /it redirects; serve it at its own URL/,
    );
    assert.match(
      await refusal(fetcher, "https://client.example/gone"),
      /could not be fetched .*404/,
    );
    assert.match(
      await refusal(fetcher, "https://client.example/html"),
      /served as text\/html, not application\/json/,
    );
    assert.match(await refusal(fetcher, "https://client.example/bad"), /not JSON/);
    assert.match(await refusal(fetcher, "https://client.example/big"), /larger than 1024 bytes/);
  });
});
