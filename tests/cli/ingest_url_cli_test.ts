/**
 * @module Subprocess tests of `engram ingest URL` against a real loopback server on an ephemeral
 * port: refused by default, allowed for one run with `--allow-host`, or by `host:port` in config.
 */
import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { assertFails, runJson, writeText } from "./_util.ts";

/** A loopback server with one page, counting requests; shut down on dispose. */
function serve(): { base: string; port: number; hits: () => number } & AsyncDisposable {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits++;
    return new Response("# Local wiki\n\nThe build runs at night.\n", {
      headers: { "content-type": "text/markdown" },
    });
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    port: server.addr.port,
    hits: () => hits,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

interface Summary {
  ingested: number;
  failed: { source: string; error: string }[];
}

Deno.test("engram ingest URL: loopback refused naming --allow-host and the config key; --allow-host HOST:PORT ingests it", async () => {
  await using dir = await tempDir();
  await using server = serve();
  const url = `${server.base}/wiki`;
  const refused = await runEngram(["ingest", url], { dataDir: dir.path });
  assert.equal(refused.code, 1, refused.stderr);
  assert.equal(
    refused.stderr,
    `failed: ${url}: forbidden: refusing to fetch ${url}: 127.0.0.1 is a loopback address; allow it for this run with --allow-host 127.0.0.1:${server.port}, or always with ingest.allowed_url_hosts in the config\n`,
  );
  assert.equal(server.hits(), 0);

  const otherPort = await runEngram(
    ["ingest", url, "--allow-host", `127.0.0.1:${server.port + 1}`],
    { dataDir: dir.path },
  );
  assert.equal(otherPort.code, 1, "another port of the host allows nothing here");
  assert.match(otherPort.stderr, /forbidden: refusing to fetch/);
  assert.equal(server.hits(), 0);

  const ok = await runJson<Summary>(
    [
      "ingest",
      url,
      "--allow-host",
      "example.com",
      "--allow-host",
      `127.0.0.1:${server.port}`,
      "--json",
    ],
    { dataDir: dir.path },
  );
  assert.deepEqual([ok.ingested, ok.failed], [1, []]);
  assert.equal(server.hits(), 1);
  const hits = await runJson<{ hits: { path: string }[] }>(
    ["search", "build night", "--json"],
    { dataDir: dir.path },
  );
  assert.match(hits.hits[0].path, /^\/ingest\/web\/127\.0\.0\.1-\d+\/wiki\.md$/);
});

Deno.test("engram ingest URL: ingest.allowed_url_hosts [127.0.0.1:PORT] allows that port and no other", async () => {
  await using dir = await tempDir();
  await using server = serve();
  await using other = serve();
  const config = await writeText(
    dir.path,
    "engram.yaml",
    `ingest:\n  allowed_url_hosts: ["127.0.0.1:${server.port}"]\n`,
  );
  const ok = await runJson<Summary>(["ingest", `${server.base}/`, "--config", config, "--json"], {
    dataDir: dir.path,
  });
  assert.deepEqual([ok.ingested, ok.failed], [1, []]);
  const refused = await runEngram(["ingest", `${other.base}/`, "--config", config], {
    dataDir: dir.path,
  });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /forbidden: refusing to fetch .*127\.0\.0\.1 is a loopback address/);
  assert.equal(other.hits(), 0);
});

Deno.test("engram ingest --allow-host with a malformed entry is a usage error naming it and the forms", async () => {
  await using dir = await tempDir();
  const r = await runEngram(
    ["ingest", "http://127.0.0.1:9/", "--allow-host", "http://127.0.0.1:9"],
    { dataDir: dir.path },
  );
  assertFails(
    r,
    2,
    'engram: --allow-host "http://127.0.0.1:9" is not host, host:port or [ipv6]:port (e.g. docs.internal, 127.0.0.1:8931, [::1]:8931); see: engram ingest --help\nusage: engram ingest',
  );
});
