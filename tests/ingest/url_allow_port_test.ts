/**
 * @module fetchUrl with `host:port` allowlist entries, against real HTTP servers on loopback
 * ephemeral ports: the exact port is fetched, another port of the same host is refused unrequested.
 */
import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import { fetchUrl } from "../../src/ingest/url_fetch.ts";

/** A loopback server answering "hello from <name>", counting requests; shut down on dispose. */
function serve(name: string): { base: string; port: number; hits: () => number } & AsyncDisposable {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits++;
    return new Response(`hello from ${name}`, { headers: { "content-type": "text/plain" } });
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    port: server.addr.port,
    hits: () => hits,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("allowed_url_hosts 127.0.0.1:PORT allows that port only; 127.0.0.1 alone allows any", async () => {
  await using a = serve("a");
  await using b = serve("b");
  const allowHosts = [`127.0.0.1:${a.port}`];
  const body = await fetchUrl(`${a.base}/`, { allowHosts });
  assert.equal(new TextDecoder().decode(body.bytes), "hello from a");
  await assert.rejects(fetchUrl(`${b.base}/`, { allowHosts }), (err: unknown) => {
    assert.ok(err instanceof EngramError);
    assert.equal(err.code, "forbidden");
    assert.equal(
      err.message,
      `refusing to fetch ${b.base}/: 127.0.0.1 is a loopback address; allow it with ingest.allowed_url_hosts in the config (e.g. "127.0.0.1:${b.port}")`,
    );
    return true;
  });
  assert.equal(b.hits(), 0, "the refused port got no request");
  for (const server of [a, b]) {
    const any = await fetchUrl(`${server.base}/`, { allowHosts: ["127.0.0.1"] });
    assert.equal(any.status, 200);
  }
});

Deno.test("a redirect to another port of an allowed host:port is refused on that hop", async () => {
  await using b = serve("b");
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(null, { status: 302, headers: { location: `${b.base}/` } }),
  );
  try {
    await assert.rejects(
      fetchUrl(`http://127.0.0.1:${server.addr.port}/`, {
        allowHosts: [`127.0.0.1:${server.addr.port}`],
      }),
      (err: unknown) => err instanceof EngramError && err.code === "forbidden",
    );
    assert.equal(b.hits(), 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("the operator's flag is named in the refusal when the caller offers one", async () => {
  await using a = serve("a");
  await assert.rejects(
    fetchUrl(`${a.base}/`, { allowHosts: [], allowFlag: "--allow-host" }),
    (err: unknown) => {
      assert.ok(err instanceof EngramError);
      assert.equal(
        err.message,
        `refusing to fetch ${a.base}/: 127.0.0.1 is a loopback address; allow it for this run with --allow-host 127.0.0.1:${a.port}, or always with ingest.allowed_url_hosts in the config`,
      );
      return true;
    },
  );
});
