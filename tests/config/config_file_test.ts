/** @module Which config file is read and why: each rule of the search order, named. */
import assert from "node:assert/strict";
import { configFileHint, configSummary, locateConfig } from "../../src/config/config_file.ts";
import { envFrom } from "../../src/config/env.ts";
import { tempDir } from "../helpers.ts";
import { writeText } from "../cli/_util.ts";
import { assertConfigError } from "./_config.ts";

/** Locates in a sandbox: cwd = dir, HOME and XDG_CONFIG_HOME inside it, plus `vars`. */
function locate(dir: string, flags: { config?: string } = {}, vars: Record<string, string> = {}) {
  return locateConfig(flags, {
    env: envFrom({ HOME: `${dir}/home`, XDG_CONFIG_HOME: `${dir}/xdg-config`, ...vars }),
    cwd: dir,
  });
}

/** One config in each searched place. */
async function everyPlace(dir: string) {
  return {
    flag: await writeText(dir, "flag.yaml", "log_level: info\n"),
    env: await writeText(dir, "env.yaml", "log_level: info\n"),
    project: await writeText(dir, "config/engram.yaml", "log_level: info\n"),
    user: await writeText(dir, "xdg-config/engram/engram.yaml", "log_level: info\n"),
  };
}

Deno.test("locateConfig: --config wins, and says so", async () => {
  await using dir = await tempDir();
  const p = await everyPlace(dir.path);
  const at = locate(dir.path, { config: "flag.yaml" }, { ENGRAM_CONFIG: p.env });
  assert.deepEqual([at.file, at.rule, at.path, at.reason], [
    p.flag,
    "flag",
    p.flag,
    "--config names it",
  ]);
  assert.deepEqual(at.searched, [
    { rule: "flag", path: p.flag, exists: true },
    { rule: "env", path: p.env, exists: true },
    { rule: "project", path: p.project, exists: true },
    { rule: "user", path: p.user, exists: true },
  ]);
});

Deno.test("locateConfig: $ENGRAM_CONFIG comes next; an empty one counts as unset", async () => {
  await using dir = await tempDir();
  const p = await everyPlace(dir.path);
  const at = locate(dir.path, {}, { ENGRAM_CONFIG: p.env });
  assert.deepEqual([at.file, at.rule, at.reason], [p.env, "env", "$ENGRAM_CONFIG names it"]);
  assert.deepEqual(at.searched[0], { rule: "flag", path: null, exists: false });
  const empty = locate(dir.path, {}, { ENGRAM_CONFIG: "" });
  assert.equal(empty.rule, "project");
});

Deno.test("locateConfig: ./config/engram.yaml of the working directory, named with it", async () => {
  await using dir = await tempDir();
  const p = await everyPlace(dir.path);
  const at = locate(dir.path);
  assert.deepEqual([at.file, at.rule], [p.project, "project"]);
  assert.equal(at.reason, `./config/engram.yaml exists in the working directory ${dir.path}`);
  assert.deepEqual(at.searched.slice(0, 2), [
    { rule: "flag", path: null, exists: false },
    { rule: "env", path: null, exists: false },
  ]);
});

Deno.test("locateConfig: the user's file, under $XDG_CONFIG_HOME or ~/.config", async () => {
  await using dir = await tempDir();
  const p = await everyPlace(dir.path);
  await Deno.remove(p.project);
  const at = locate(dir.path);
  assert.deepEqual([at.file, at.rule], [p.user, "user"]);
  assert.match(at.reason, /^\$XDG_CONFIG_HOME\/engram\/engram\.yaml exists/);
  const home = await writeText(dir.path, "home/.config/engram/engram.yaml", "log_level: info\n");
  const noXdg = locateConfig({}, { env: envFrom({ HOME: `${dir.path}/home` }), cwd: dir.path });
  assert.deepEqual([noXdg.file, noXdg.rule], [home, "user"]);
  assert.match(
    noXdg.reason,
    /^~\/\.config\/engram\/engram\.yaml exists \(\$XDG_CONFIG_HOME is unset\)/,
  );
});

Deno.test("locateConfig: with no file, rule none and the user's file as where one would be read", async () => {
  await using dir = await tempDir();
  const at = locate(dir.path);
  const user = `${dir.path}/xdg-config/engram/engram.yaml`;
  assert.deepEqual([at.file, at.rule, at.path], [null, "none", user]);
  assert.match(at.reason, /so engram runs on its defaults$/);
  assert.ok(at.searched.every((p) => !p.exists));
});

Deno.test("locateConfig: a --config or $ENGRAM_CONFIG naming nothing is an error naming it", async () => {
  await using dir = await tempDir();
  await everyPlace(dir.path);
  assertConfigError(
    () => locate(dir.path, { config: "nope.yaml" }),
    `config file ${dir.path}/nope.yaml (from --config) does not exist`,
  );
  assertConfigError(
    () => locate(dir.path, {}, { ENGRAM_CONFIG: `${dir.path}/config` }),
    `config file ${dir.path}/config (from ENGRAM_CONFIG) is a directory, not a YAML file`,
  );
});

Deno.test("configFileHint and configSummary name the file in use, or the one to create", async () => {
  await using dir = await tempDir();
  const none = locate(dir.path);
  const user = `${dir.path}/xdg-config/engram/engram.yaml`;
  assert.equal(configFileHint(none), `a config file at ${user} (none exists yet; create it)`);
  assert.equal(configSummary(none), `none, defaults apply (would be read from ${user})`);
  const file = await writeText(dir.path, "config/engram.yaml", "log_level: info\n");
  const found = locate(dir.path);
  assert.equal(configFileHint(found), `the config file ${file}`);
  assert.equal(configSummary(found), `${file} (./config/engram.yaml)`);
});
