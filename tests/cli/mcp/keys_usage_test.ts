/**
 * @module The error paths of `engram mcp keys` and `engram mcp sign` through the real CLI: a
 * missing or unknown keys subcommand, a key directory that cannot be created, and sign without
 * --key — each one's exit code and message — and the config file `keys generate` says to add the
 * key to. (Generating, signing and the launch they sign are tested in mcp_servers_test.ts.)
 */
import assert from "node:assert/strict";
import { runEngram, tempDir } from "../../helpers.ts";
import { assertFails, exists } from "../_util.ts";

Deno.test("mcp keys: a missing or unknown subcommand is a usage error naming generate, list and remove", async () => {
  await using dir = await tempDir();
  assertFails(
    await runEngram(["mcp", "keys"], { dataDir: dir.path }),
    2,
    /^engram: missing subcommand generate, list or remove; see: engram mcp keys generate --help\n/,
  );
  assertFails(
    await runEngram(["mcp", "keys", "rotate"], { dataDir: dir.path }),
    2,
    /^engram: unknown keys command "rotate" \(keys has generate, list and remove\); see: engram mcp keys generate --help\n/,
  );
});

Deno.test("mcp keys generate: a key directory that cannot be created says to pass --out", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/plain`, "a regular file, not a directory");
  const r = await runEngram(["mcp", "keys", "generate", "--out", "plain/keys"], {
    dataDir: dir.path,
  });
  assertFails(
    r,
    2,
    new RegExp(
      `^engram: cannot create key directory ${dir.path}/plain/keys: .+; pass --out DIR\\n$`,
    ),
  );
  assert.equal(await exists(`${dir.path}/plain/keys`), false);
});

Deno.test("mcp sign without --key is a usage error", async () => {
  await using dir = await tempDir();
  assertFails(
    await runEngram(["mcp", "sign", "files"], { dataDir: dir.path }),
    2,
    /^engram: missing --key FILE; see: engram mcp sign --help\n/,
  );
});

Deno.test("mcp keys generate names the config file to add the key to: the one in use, or the one to create", async () => {
  await using dir = await tempDir();
  let r = await runEngram(["mcp", "keys", "generate", "--out", "k1"], { dataDir: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(
      `^add the public key to a config file at ${dir.path}/xdg-config/engram/engram\\.yaml \\(none exists yet; create it\\):$`,
      "m",
    ),
  );
  const file = `${dir.path}/config/engram.yaml`;
  await Deno.mkdir(`${dir.path}/config`);
  await Deno.writeTextFile(file, "log_level: info\n");
  r = await runEngram(["mcp", "keys", "generate", "--out", "k2"], { dataDir: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes(`\nadd the public key to the config file ${file}:\n`), r.stdout);
  // A --config naming nothing stops before a key is written.
  assertFails(
    await runEngram(["mcp", "keys", "generate", "--out", "k3", "--config", "nope.yaml"], {
      dataDir: dir.path,
    }),
    2,
    `config file ${dir.path}/nope.yaml (from --config) does not exist`,
  );
  assert.equal(await exists(`${dir.path}/k3`), false);
});

Deno.test("mcp sign takes NAME or --all, not both and not neither", async () => {
  await using dir = await tempDir();
  assertFails(
    await runEngram(["mcp", "sign", "--key", "k.pem"], { dataDir: dir.path }),
    2,
    /^engram: missing NAME \(or --all\); see: engram mcp sign --help\n/,
  );
  assertFails(
    await runEngram(["mcp", "sign", "files", "--all", "--key", "k.pem"], { dataDir: dir.path }),
    2,
    /^engram: --all takes no NAME; see: engram mcp sign --help\n/,
  );
});
