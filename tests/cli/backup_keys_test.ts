/**
 * @module `engram backup` and `engram restore` with upstream OAuth logins in the database, run as
 * real processes: a backup copies the database, never the key file that seals the logins, so it
 * warns to keep that file with it (not when the key is ENGRAM_SECRET_KEY, kept apart on purpose);
 * a restore names each login the key in use cannot open, with the fix. The logins are sealed by
 * engram's own vault over the real database, as a login would leave them.
 */
import assert from "node:assert/strict";
import { envFrom } from "../../src/config/env.ts";
import { secretKeySource } from "../../src/config/secret_key.ts";
import { UpstreamOAuth } from "../../src/mcp/client/oauth/upstream_oauth.ts";
import { openSqliteStorage } from "../../src/storage/sqlite/sqlite_storage.ts";
import { runEngram, tempDir } from "../helpers.ts";
import { assertOk, runJson } from "./_util.ts";

/** A base64 key of 32 bytes, as `openssl rand -base64 32` makes one. */
function newKey(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
}

/**
 * Seals a login of upstream `server` into the database of `dataDir`, under the key engram uses
 * with `env` (the data directory's key file unless ENGRAM_SECRET_KEY is set); returns the key id.
 */
async function sealLogin(
  dataDir: string,
  server: string,
  env: Record<string, string> = {},
): Promise<string> {
  const storage = openSqliteStorage(`${dataDir}/engram.db`);
  try {
    const snapshot = envFrom(env);
    const oauth = new UpstreamOAuth({
      store: storage.upstreamCredentials,
      keys: secretKeySource(snapshot, dataDir),
      env: snapshot,
    });
    await oauth.vault.saveTokens(server, {
      access_token: `at-${server}-secret`,
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: `rt-${server}-secret`,
    });
    return (await storage.upstreamCredentials.findCredentials(server))!.key_id!;
  } finally {
    storage.close();
  }
}

interface BackupJson {
  file: string;
  upstream_logins?: { servers: string[]; secret_key: string; key_in_backup: boolean };
}

interface LockedLogin {
  server: string;
  key_id: string;
  key_in_use: string;
  fix: string;
}

Deno.test("backup warns to keep the key file with it when upstream logins are sealed with that file", async () => {
  await using src = await tempDir();
  await using out = await tempDir();
  assertOk(
    await runEngram(["remember", "--path", "/a.md", "-"], { dataDir: src.path, stdin: "a\n" }),
  );
  const plain = await runEngram(["backup", `${out.path}/plain.db`], { dataDir: src.path });
  assertOk(plain);
  assert.equal(plain.stderr, "", "nothing to warn about without logins");

  await sealLogin(src.path, "docs");
  await sealLogin(src.path, "linear");
  const keyFile = `${src.path}/secret.key`;
  const r = await runEngram(["backup", `${out.path}/b.db`], { dataDir: src.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^backed up to /);
  assert.equal(
    r.stderr,
    `warning: the backup holds the OAuth logins of upstream servers docs, linear, sealed with the key file ${keyFile}, which engram backup does not copy: keep that file with the backup (private, mode 600), or log in again after a restore\n`,
  );
  const j = await runEngram(["backup", `${out.path}/j.db`, "--json"], { dataDir: src.path });
  assert.equal(j.code, 0, j.stderr);
  assert.match(j.stderr, /^warning: /, "the warning is said with --json too, on stderr");
  const json = JSON.parse(j.stdout) as BackupJson;
  assert.deepEqual(json.upstream_logins, {
    servers: ["docs", "linear"],
    secret_key: keyFile,
    key_in_backup: false,
  });
  const copied = new TextDecoder("latin1").decode(await Deno.readFile(`${out.path}/b.db`));
  assert.ok(!copied.includes("rt-docs-secret"), "the tokens are sealed in the backup too");
});

Deno.test("backup does not warn when the key is ENGRAM_SECRET_KEY, kept apart from the data", async () => {
  await using src = await tempDir();
  await using out = await tempDir();
  const env = { ENGRAM_SECRET_KEY: newKey() };
  await sealLogin(src.path, "docs", env);
  const r = await runEngram(["backup", `${out.path}/b.db`, "--json"], { dataDir: src.path, env });
  assertOk(r);
  assert.equal(r.stderr, "");
  assert.deepEqual((JSON.parse(r.stdout) as BackupJson).upstream_logins, {
    servers: ["docs"],
    secret_key: "ENGRAM_SECRET_KEY",
    key_in_backup: false,
  });
});

Deno.test("restore names each login the key in use cannot open, and the fix; with the key file back, none", async () => {
  await using src = await tempDir();
  await using dst = await tempDir();
  await using out = await tempDir();
  const keyId = await sealLogin(src.path, "docs");
  const backup = `${out.path}/b.db`;
  const b = await runEngram(["backup", backup], { dataDir: src.path });
  assert.equal(b.code, 0, b.stderr);
  assert.match(b.stderr, /^warning: the backup holds the OAuth login of upstream server docs, /);

  const fix =
    `bring key ${keyId} back (the key file secret.key in the data directory, or ENGRAM_SECRET_KEY), or log in again with: engram mcp auth login docs`;
  const bare = await runEngram(["restore", backup], { dataDir: dst.path });
  assertOk(bare);
  assert.equal(
    bare.stdout.split("\n")[1],
    `the OAuth login of upstream "docs" needs key ${keyId} (no key is in use: ${dst.path}/secret.key does not exist): ${fix}`,
  );

  const other = newKey();
  const wrong = await runJson<{ logins_needing_key: LockedLogin[] }>(
    ["restore", backup, "--force", "--json"],
    { dataDir: dst.path, env: { ENGRAM_SECRET_KEY: other } },
  );
  assert.equal(wrong.logins_needing_key.length, 1);
  assert.deepEqual(
    { ...wrong.logins_needing_key[0], key_in_use: "" },
    { server: "docs", key_id: keyId, key_in_use: "", fix },
  );
  assert.match(
    wrong.logins_needing_key[0].key_in_use,
    /^the key in use is [0-9a-f]{12}, from ENGRAM_SECRET_KEY$/,
  );

  await Deno.copyFile(`${src.path}/secret.key`, `${dst.path}/secret.key`);
  await Deno.chmod(`${dst.path}/secret.key`, 0o600);
  const kept = await runEngram(["restore", backup, "--force"], { dataDir: dst.path });
  assertOk(kept);
  assert.equal(kept.stdout.split("\n").length, 2, `only the restored line:\n${kept.stdout}`);
  const json = await runJson<{ logins_needing_key: LockedLogin[] }>(
    ["restore", backup, "--force", "--json"],
    { dataDir: dst.path },
  );
  assert.deepEqual(json.logins_needing_key, []);
});
