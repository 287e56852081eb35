/**
 * @module `engram mcp marketplace` through the real CLI: the catalogue by category with tested
 * marks, a ready config entry that the config loader accepts as it is printed, and `add`, which
 * writes the server like an import — disabled, user_added, consent pending — as `servers` shows.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { runEngram, tempDir } from "../../helpers.ts";
import { assertFails, assertOk } from "../_util.ts";

async function world() {
  const dir = await tempDir("engram-marketplace-");
  const run = (...args: string[]) => runEngram(["mcp", ...args], { dataDir: dir.path });
  return { dir: dir.path, run, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

Deno.test("marketplace list: every server by category, tested or untested and why", async () => {
  await using w = await world();
  const text = await w.run("marketplace");
  assertOk(text);
  assert.match(text.stdout, /^the engram marketplace, reviewed \d{4}-\d{2}-\d{2}: 7 server\(s\)\n/);
  assert.match(
    text.stdout,
    /\nfiles:\n {2}filesystem\s+tested\s+npm @modelcontextprotocol\/server-filesystem@\d+\.\d+\.\d+\s+restricted, network\s+Read, search/,
  );
  assert.match(text.stdout, /\nweb:\n {2}fetch\s+untested\s+pypi mcp-server-fetch@0\.6\.3/);
  assert.match(text.stdout, /\nuntested git: PyPI is not reachable/);
  assert.equal((await w.run("marketplace", "list")).stdout, text.stdout);

  const json = JSON.parse((await w.run("marketplace", "list", "--json")).stdout);
  const names = json.servers.map((s: { name: string }) => s.name);
  for (
    const n of ["filesystem", "memory", "everything", "sequential-thinking", "fetch", "git", "time"]
  ) {
    assert.ok(names.includes(n), n);
  }
  for (const s of json.servers) {
    assert.match(s.version, /^\d+\.\d+\.\d+$/, `${s.name} is pinned to one version`);
    assert.equal(s.tested, s.registry === "npm", `${s.name}: tested marks what ran here`);
    if (!s.tested) assert.ok(s.untested_reason);
  }
});

Deno.test("marketplace show prints a config entry the loader accepts as printed", async () => {
  await using w = await world();
  const text = await w.run("marketplace", "show", "filesystem");
  assertOk(text);
  assert.match(text.stdout, /^filesystem: Filesystem\n/);
  assert.match(text.stdout, /\nparameter FOLDER\s+the one folder it may read and write/);
  assert.match(text.stdout, /\nnotes: network is on only so npx can download/);
  assert.match(
    text.stdout,
    /or add it to the database, disabled and pending review: engram mcp marketplace add filesystem --set FOLDER=…\n$/,
  );
  const shown = JSON.parse((await w.run("marketplace", "show", "filesystem", "--json")).stdout);
  assert.equal(shown.package, "@modelcontextprotocol/server-filesystem");
  assert.ok(text.stdout.includes(shown.yaml.trimEnd()), "text and JSON show the same entry");

  // Outside the data folder and /tmp, which the cwd rule refuses before it looks at the signature.
  const scratch = new URL("../../../.scratch", import.meta.url).pathname;
  await Deno.mkdir(scratch, { recursive: true });
  const folder = await Deno.makeTempDir({ dir: scratch, prefix: "engram-notes-" });
  await using _folder = {
    [Symbol.asyncDispose]: () => Deno.remove(folder, { recursive: true }).catch(() => {}),
  };
  await Deno.mkdir(`${w.dir}/config`);
  await Deno.writeTextFile(
    `${w.dir}/config/engram.yaml`,
    shown.yaml.replaceAll("${FOLDER}", folder),
  );
  const entry = parse(shown.yaml).mcp.mcp_servers[0];
  assert.deepEqual(entry.args, [
    "-y",
    `@modelcontextprotocol/server-filesystem@${shown.version}`,
    "${FOLDER}",
  ]);
  const servers = JSON.parse((await w.run("servers", "--json")).stdout);
  assert.equal(servers.length, 1);
  assert.equal(servers[0].name, "filesystem");
  assert.equal(servers[0].origin, "yaml");
  assert.deepEqual(servers[0].args.at(-1), folder);
  assert.equal(servers[0].client_consent, "pending");
  assert.equal(servers[0].blocked.rule, "manifest_digest", "loaded; it waits for review");

  assertFails(
    await w.run("marketplace", "show", "nope"),
    1,
    /not_found: the marketplace has no server "nope" \(it has: filesystem, .*\); see: engram mcp marketplace list/,
  );
});

Deno.test("marketplace add writes the server disabled, user_added and consent pending; servers shows it", async () => {
  await using w = await world();
  const folder = `${w.dir}/notes`;
  const added = await w.run("marketplace", "add", "filesystem", "--set", `FOLDER=${folder}`);
  assertOk(added);
  assert.match(
    added.stdout,
    /^added filesystem from the marketplace \(npm @modelcontextprotocol\/server-filesystem@[\d.]+\): disabled, user_added, consent pending\n/,
  );
  const memory = await w.run("marketplace", "add", "memory", "--as", "graph", "--json");
  assertOk(memory);
  assert.equal(JSON.parse(memory.stdout).added, "graph");

  const text = await w.run("servers");
  assertOk(text);
  assert.match(
    text.stdout,
    /\nfilesystem\s+stdio\s+marketplace\s+no\s+user_added\s+pending\s+(disabled|blocked)\s+never\n/,
  );
  assert.match(text.stdout, /\ngraph\s+stdio\s+marketplace\s+no\s+user_added\s+pending/);
  const servers = JSON.parse((await w.run("servers", "--json")).stdout);
  const fs = servers.find((s: { name: string }) => s.name === "filesystem");
  assert.deepEqual(
    [fs.origin, fs.enabled, fs.trust, fs.client_consent, fs.command, fs.sandbox_profile],
    ["marketplace", false, "user_added", "pending", "npx", "restricted"],
  );
  assert.equal(fs.args.at(-1), folder);
  assert.ok(
    fs.blocked,
    "a catalogue entry is not a review: it still needs an allowlist and signature",
  );

  assertFails(
    await w.run("marketplace", "add", "filesystem", "--set", `FOLDER=${folder}`),
    1,
    'engram: conflict: a server named "filesystem" already exists (marketplace); add this one under another name with --as NAME',
  );
  assertFails(
    await w.run("marketplace", "add", "git"),
    2,
    "git needs --set REPOSITORY=… (the repository it works on (absolute path))",
  );
  assertFails(
    await w.run("marketplace", "add", "filesystem", "--as", "fs2", "--set", "FOLDER=relative"),
    2,
    /cwd must be an absolute path .*\(check the --set values\)/,
  );
  assertFails(
    await w.run("marketplace", "add", "memory", "--as", "g2", "--set", "FOLDER=/x"),
    2,
    "memory takes no parameter FOLDER",
  );
  assertFails(
    await w.run("marketplace", "add", "memory", "--as", "g3", "--set", "novalue"),
    2,
    '--set "novalue" is not KEY=VALUE',
  );
  assertFails(await w.run("marketplace", "list", "--as", "x"), 2, "--as and --set go with add");
  assertFails(
    await w.run("marketplace", "install", "memory"),
    2,
    'unknown marketplace command "install"; it has: list, show NAME, add NAME',
  );
  assertFails(await w.run("marketplace", "add"), 2, /missing NAME/);

  const removed = await w.run("remove", "graph");
  assertOk(removed);
  assert.match(removed.stdout, /removed upstream server graph \(marketplace\)/);
});
