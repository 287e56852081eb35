/** @module `ingest.allowed_url_hosts` at config load: host, host:port and [v6]:port; anything else refused. */
import assert from "node:assert/strict";
import { envFrom } from "../../src/config/env.ts";
import { loadConfig } from "../../src/config/load.ts";
import { EngramError } from "../../src/core/errors.ts";
import { tempDir } from "../helpers.ts";
import { writeText } from "../cli/_util.ts";

function load(dir: string, yaml: string) {
  return writeText(dir, "engram.yaml", yaml).then((config) =>
    loadConfig({ config }, { env: envFrom({ HOME: `${dir}/home` }), cwd: dir })
  );
}

Deno.test("config: allowed_url_hosts takes host, host:port and [ipv6]:port entries", async () => {
  await using dir = await tempDir();
  const entries = ["docs.internal", "127.0.0.1:8931", "[::1]:8931", "::1"];
  const c = await load(dir.path, `ingest:\n  allowed_url_hosts: ${JSON.stringify(entries)}\n`);
  assert.deepEqual(c.ingest.allowed_url_hosts, entries);
});

Deno.test("config: a malformed allowed_url_hosts entry fails at load, naming the entry, its line and the forms", async () => {
  await using dir = await tempDir();
  const yaml =
    `ingest:\n  allowed_url_hosts:\n    - 127.0.0.1:8931\n    - http://127.0.0.1:8931/\n`;
  await assert.rejects(load(dir.path, yaml), (err: unknown) => {
    assert.ok(err instanceof EngramError);
    assert.equal(err.code, "invalid_argument");
    assert.equal(
      err.message,
      `config ${dir.path}/engram.yaml:4 key ingest.allowed_url_hosts.1: "http://127.0.0.1:8931/" is not host, host:port or [ipv6]:port (e.g. docs.internal, 127.0.0.1:8931, [::1]:8931)`,
    );
    return true;
  });
});
