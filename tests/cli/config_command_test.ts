/**
 * @module Which config file engram uses, as a user sees it: `engram config path` with each rule of
 * the search order, `engram version --json`, and the start-up log line of `stdio` and `serve`.
 */
import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { spawnServe } from "../http/http_helpers.ts";
import { assertFails, assertOk, writeText } from "./_util.ts";

interface Located {
  file: string | null;
  path: string;
  rule: string;
  reason: string;
  searched: { rule: string; path: string | null; exists: boolean }[];
}

async function configPath(dir: string, args: string[] = [], env: Record<string, string> = {}) {
  const r = await runEngram(["config", "path", "--json", ...args], { dataDir: dir, env });
  assertOk(r);
  return JSON.parse(r.stdout) as Located;
}

Deno.test("engram config path --json: each rule of the search order, and none", async () => {
  await using dir = await tempDir();
  const d = dir.path;
  const user = `${d}/xdg-config/engram/engram.yaml`;
  let at = await configPath(d);
  assert.deepEqual([at.file, at.rule, at.path], [null, "none", user]);
  assert.deepEqual(at.searched.map((p) => [p.rule, p.path, p.exists]), [
    ["flag", null, false],
    ["env", null, false],
    ["project", `${d}/config/engram.yaml`, false],
    ["user", user, false],
  ]);
  await writeText(d, "xdg-config/engram/engram.yaml", "log_level: info\n");
  at = await configPath(d);
  assert.deepEqual([at.file, at.rule], [user, "user"]);
  const project = await writeText(d, "config/engram.yaml", "log_level: info\n");
  at = await configPath(d);
  assert.deepEqual([at.file, at.rule], [project, "project"]);
  assert.match(at.reason, /working directory/);
  const named = await writeText(d, "named.yaml", "log_level: info\n");
  at = await configPath(d, [], { ENGRAM_CONFIG: named });
  assert.deepEqual([at.file, at.rule, at.reason], [named, "env", "$ENGRAM_CONFIG names it"]);
  const flagged = await writeText(d, "flagged.yaml", "log_level: info\n");
  at = await configPath(d, ["--config", "flagged.yaml"], { ENGRAM_CONFIG: named });
  assert.deepEqual([at.file, at.rule, at.reason], [flagged, "flag", "--config names it"]);
});

Deno.test("engram config path: the path first, then why, then every place searched", async () => {
  await using dir = await tempDir();
  const user = `${dir.path}/xdg-config/engram/engram.yaml`;
  let r = await runEngram(["config", "path"], { dataDir: dir.path });
  assertOk(r);
  let lines = r.stdout.split("\n");
  assert.equal(lines[0], user);
  assert.match(
    lines[1],
    /^not there: no config file: .* so engram runs on its defaults; to configure engram, create it \(copy config\/engram\.example\.yaml/,
  );
  assert.match(r.stdout, /\$XDG_CONFIG_HOME\/engram\/engram\.yaml\s+\S+engram\.yaml\s+missing/);
  assert.match(r.stdout, /--config\s+-\s+not given/);
  // A broken file is still found: config path does not load it.
  const file = await writeText(dir.path, "config/engram.yaml", "log_level: [nope\n");
  r = await runEngram(["config", "path"], { dataDir: dir.path });
  assertOk(r);
  lines = r.stdout.split("\n");
  assert.equal(lines[0], file);
  assert.equal(
    lines[1],
    `in use: ./config/engram.yaml exists in the working directory ${dir.path}`,
  );
  assert.match(r.stdout, /\.\/config\/engram\.yaml\s+\S+\s+in use/);
});

Deno.test("engram config: a --config naming nothing, a missing or unknown subcommand", async () => {
  await using dir = await tempDir();
  assertFails(
    await runEngram(["config", "path", "--config", "nope.yaml"], { dataDir: dir.path }),
    2,
    `engram: config file ${dir.path}/nope.yaml (from --config) does not exist`,
  );
  const bare = await runEngram(["config"], { dataDir: dir.path });
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /engram config path \[--json\]/);
  assertFails(
    await runEngram(["config", "paths"], { dataDir: dir.path }),
    2,
    'unknown config command "paths"',
  );
});

Deno.test("engram version --json names the config file in use, and one that is missing", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "config/engram.yaml", "log_level: info\n");
  let r = await runEngram(["version", "--json"], { dataDir: dir.path });
  assertOk(r);
  assert.deepEqual(JSON.parse(r.stdout).config, { file, path: file, rule: "project" });
  r = await runEngram(["version", "--json"], {
    dataDir: dir.path,
    env: { ENGRAM_CONFIG: `${dir.path}/gone.yaml` },
  });
  assertOk(r);
  assert.deepEqual(JSON.parse(r.stdout).config, {
    file: null,
    error: `config file ${dir.path}/gone.yaml (from ENGRAM_CONFIG) does not exist`,
  });
});

Deno.test("engram stdio's start-up line names the config file and its rule, or that there is none", async () => {
  await using dir = await tempDir();
  let r = await runEngram(["stdio"], { dataDir: dir.path, stdin: "" });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(
      `serving MCP on stdio at tier read; database \\S+; config none, defaults apply \\(would be read from ${dir.path}/xdg-config/engram/engram\\.yaml\\)`,
    ),
  );
  const file = await writeText(dir.path, "mine.yaml", "log_level: info\n");
  r = await runEngram(["stdio", "--config", file], { dataDir: dir.path, stdin: "" });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stderr.includes(`; config ${file} (--config)\n`), r.stderr);
});

Deno.test("engram serve's start-up line names the config file and its rule", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "xdg-config/engram/engram.yaml", "log_level: info\n");
  const serve = await spawnServe(dir.path, ["--insecure-no-auth"]);
  serve.child.kill("SIGTERM");
  await serve.child.status;
  const stderr = await serve.stderr();
  assert.ok(
    stderr.includes(`; config ${file} ($XDG_CONFIG_HOME/engram/engram.yaml)\n`),
    stderr,
  );
});
