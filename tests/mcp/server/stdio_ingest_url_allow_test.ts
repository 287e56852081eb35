/**
 * @module memory_ingest_url has no way to widen the allowlist: `--allow-host` is the operator CLI's
 * alone, so an agent passing allow-host-like arguments still gets loopback refused, unrequested.
 */
import assert from "node:assert/strict";
import { callErr, connectStdio, tempDir } from "../../helpers.ts";

Deno.test("memory_ingest_url: no allow-host parameter; extra allow keys are refused and loopback stays refused", async () => {
  await using dir = await tempDir();
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits++;
    return new Response("secret", { headers: { "content-type": "text/plain" } });
  });
  const entry = `127.0.0.1:${server.addr.port}`;
  try {
    await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
    const { tools } = await s.client.listTools();
    const tool = tools.find((t) => t.name === "memory_ingest_url")!;
    assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), ["brain", "url"]);
    const extra = await callErr(s.client, "memory_ingest_url", {
      url: `http://${entry}/`,
      allow_host: entry,
      allowHost: entry,
      allow_hosts: [entry],
      allowHosts: [entry],
      "allow-host": [entry],
      allowed_url_hosts: [entry],
    });
    assert.equal(extra.code, "invalid_argument");
    assert.match(
      extra.message,
      /unknown argument "allow_host"; memory_ingest_url takes url, brain/,
    );
    const e = await callErr(s.client, "memory_ingest_url", { url: `http://${entry}/` });
    assert.equal(e.code, "forbidden");
    assert.match(
      e.message,
      /127\.0\.0\.1 is a loopback address; allow it with ingest\.allowed_url_hosts/,
    );
    assert.doesNotMatch(e.message, /--allow-host/, "agents are not told about the operator's flag");
    assert.equal(hits, 0);
  } finally {
    await server.shutdown();
  }
});
