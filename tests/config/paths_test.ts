import assert from "node:assert/strict";
import { envFrom } from "../../src/config/env.ts";
import { loadConfig } from "../../src/config/load.ts";
import { dataDirectory, expandHome, joinPath, userDirectory } from "../../src/config/paths.ts";
import { runEngram, tempDir } from "../helpers.ts";
import {
  assertOk,
  denoDir,
  envWithout,
  exists,
  runJson,
  spawnEngram,
  writeText,
} from "../cli/_util.ts";

// --- joinPath / expandHome ----------------------------------------------------------------------

Deno.test("joinPath joins with / and collapses doubled slashes", () => {
  assert.equal(joinPath("/a", "b", "c.db"), "/a/b/c.db");
  assert.equal(joinPath("/a/", "/b/", "c"), "/a/b/c");
  assert.equal(joinPath("/data/", "engram.db"), "/data/engram.db");
});

Deno.test("expandHome replaces a leading ~ and ~/ with $HOME", () => {
  const env = envFrom({ HOME: "/home/ada" });
  assert.equal(expandHome("~", env), "/home/ada");
  assert.equal(expandHome("~/notes", env), "/home/ada/notes");
  assert.equal(expandHome("~/notes", env, "/work"), "/home/ada/notes");
});

Deno.test("expandHome leaves ~ in the middle of a path and absolute paths alone", () => {
  const env = envFrom({ HOME: "/home/ada" });
  assert.equal(expandHome("/srv/~/x", env, "/work"), "/srv/~/x");
  assert.equal(expandHome("/srv/engram", env, "/work"), "/srv/engram");
  assert.equal(expandHome("a~/b", env), "a~/b");
});

Deno.test("expandHome makes a relative path absolute against cwd, only when cwd is given", () => {
  const env = envFrom({});
  assert.equal(expandHome("data", env, "/work"), "/work/data");
  assert.equal(expandHome("./data", env, "/work/"), "/work/./data");
  assert.equal(expandHome("data", env), "data");
});

// --- dataDirectory precedence ---------------------------------------------------------------------

const FULL_ENV = {
  HOME: "/home/ada",
  XDG_DATA_HOME: "/xdg/data",
  ENGRAM_DATA_DIR: "/env/data",
};

Deno.test("data dir: --data wins over everything", () => {
  const d = dataDirectory({
    flag: "/flag/data",
    config: "/file/data",
    env: envFrom(FULL_ENV),
    cwd: "/w",
  });
  assert.equal(d, "/flag/data");
});

Deno.test("data dir: $ENGRAM_DATA_DIR wins over the config file and XDG", () => {
  const d = dataDirectory({ config: "/file/data", env: envFrom(FULL_ENV), cwd: "/w" });
  assert.equal(d, "/env/data");
});

Deno.test("data dir: data_dir from the config wins over $XDG_DATA_HOME", () => {
  const { ENGRAM_DATA_DIR: _, ...env } = FULL_ENV;
  assert.equal(dataDirectory({ config: "/file/data", env: envFrom(env), cwd: "/w" }), "/file/data");
});

Deno.test("data dir: $XDG_DATA_HOME/engram when nothing else is set", () => {
  assert.equal(
    dataDirectory({ env: envFrom({ HOME: "/home/ada", XDG_DATA_HOME: "/xdg/data" }), cwd: "/w" }),
    "/xdg/data/engram",
  );
});

Deno.test("data dir: ~/.local/share/engram without XDG_DATA_HOME (or with it empty)", () => {
  assert.equal(
    dataDirectory({ env: envFrom({ HOME: "/home/ada" }), cwd: "/w" }),
    "/home/ada/.local/share/engram",
  );
  assert.equal(
    dataDirectory({ env: envFrom({ HOME: "/home/ada", XDG_DATA_HOME: "" }), cwd: "/w" }),
    "/home/ada/.local/share/engram",
  );
});

Deno.test("data dir: with neither HOME nor XDG_DATA_HOME, ./.engram under cwd", () => {
  assert.equal(dataDirectory({ env: envFrom({}), cwd: "/w" }), "/w/.engram");
});

Deno.test("data dir: an empty ENGRAM_DATA_DIR counts as unset and the config's data_dir applies", () => {
  const env = envFrom({ ...FULL_ENV, ENGRAM_DATA_DIR: "" });
  assert.equal(dataDirectory({ config: "/file/data", env, cwd: "/w" }), "/file/data");
});

Deno.test("data dir: ~ is expanded in --data, ENGRAM_DATA_DIR and data_dir", () => {
  const env = envFrom({ HOME: "/home/ada" });
  assert.equal(dataDirectory({ flag: "~/f", env, cwd: "/w" }), "/home/ada/f");
  assert.equal(
    dataDirectory({ env: envFrom({ HOME: "/home/ada", ENGRAM_DATA_DIR: "~/e" }), cwd: "/w" }),
    "/home/ada/e",
  );
  assert.equal(dataDirectory({ config: "~/c", env, cwd: "/w" }), "/home/ada/c");
});

Deno.test("data dir: a relative --data is resolved against cwd", () => {
  assert.equal(dataDirectory({ flag: "store", env: envFrom({}), cwd: "/w" }), "/w/store");
});

Deno.test("loadConfig expands ~ in data_dir from the file and puts engram.db inside it", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "data_dir: ~/engram-data\n");
  const c = loadConfig({ config: file }, {
    env: envFrom({ HOME: "/home/ada", XDG_DATA_HOME: "/xdg" }),
    cwd: dir.path,
  });
  assert.equal(c.dataDir, "/home/ada/engram-data");
  assert.equal(c.dbFile, "/home/ada/engram-data/engram.db");
});

// --- through the CLI: where the database actually lands --------------------------------------------

Deno.test("CLI: --data beats $ENGRAM_DATA_DIR; the database is created only there", async () => {
  await using dir = await tempDir();
  const flagDir = `${dir.path}/from-flag`;
  const envDir = `${dir.path}/from-env`;
  const r = await runEngram(["brains", "list", "--data", flagDir], {
    dataDir: dir.path,
    env: { ENGRAM_DATA_DIR: envDir },
  });
  assertOk(r);
  assert.equal(await exists(`${flagDir}/engram.db`), true);
  assert.equal(await exists(`${envDir}/engram.db`), false);
});

Deno.test("CLI: $ENGRAM_DATA_DIR beats data_dir in the config file", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "config/engram.yaml", `data_dir: ${dir.path}/from-file\n`);
  assertOk(await runEngram(["brains", "list"], { dataDir: dir.path }));
  assert.equal(await exists(`${dir.path}/engram.db`), true);
  assert.equal(await exists(`${dir.path}/from-file`), false);
});

Deno.test("CLI: data_dir from the config file is used when ENGRAM_DATA_DIR is unset", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "config/engram.yaml", "data_dir: ./from-file\n");
  const r = await spawnEngram(["brains", "list"], {
    cwd: dir.path,
    env: envWithout(dir.path, ["ENGRAM_DATA_DIR"]),
  });
  assertOk(r);
  assert.equal(await exists(`${dir.path}/from-file/engram.db`), true);
  assert.equal(await exists(`${dir.path}/xdg-data`), false);
});

Deno.test("CLI: with no data dir configured the database goes to $XDG_DATA_HOME/engram", async () => {
  await using dir = await tempDir();
  const r = await spawnEngram(["brains", "list"], {
    cwd: dir.path,
    env: envWithout(dir.path, ["ENGRAM_DATA_DIR"]),
  });
  assertOk(r);
  assert.equal(await exists(`${dir.path}/xdg-data/engram/engram.db`), true);
});

Deno.test("CLI: without XDG_DATA_HOME the database goes to ~/.local/share/engram", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  await Deno.mkdir(home);
  const env = envWithout(dir.path, ["ENGRAM_DATA_DIR", "XDG_DATA_HOME"], {
    HOME: home,
    DENO_DIR: await denoDir(),
  });
  const r = await spawnEngram(["brains", "list"], { cwd: dir.path, env });
  assertOk(r);
  assert.equal(await exists(`${home}/.local/share/engram/engram.db`), true);
});

Deno.test("CLI: ~ in data_dir is expanded to $HOME", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  await Deno.mkdir(home);
  await writeText(dir.path, "config/engram.yaml", "data_dir: ~/my-engram\n");
  const env = envWithout(dir.path, ["ENGRAM_DATA_DIR"], { HOME: home, DENO_DIR: await denoDir() });
  const r = await spawnEngram(["brains", "list"], { cwd: dir.path, env });
  assertOk(r);
  assert.equal(await exists(`${home}/my-engram/engram.db`), true);
  assert.equal(await exists(`${dir.path}/~`), false, "a literal ~ directory must not appear");
});

Deno.test("CLI: the data written with --data is what a later run with --data reads", async () => {
  await using dir = await tempDir();
  const store = `${dir.path}/elsewhere`;
  assertOk(
    await runEngram(["remember", "-", "--data", store], {
      dataDir: dir.path,
      stdin: "# Where\n\nkept elsewhere\n",
    }),
  );
  const there = await runJson<{ hits: unknown[] }>(
    ["search", "elsewhere", "--data", store, "--json"],
    { dataDir: dir.path },
  );
  const here = await runJson<{ hits: unknown[] }>(["search", "elsewhere", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(there.hits.length, 1);
  assert.equal(here.hits.length, 0);
});

// --- userDirectory (INIT_CWD) ---------------------------------------------------------------

Deno.test("userDirectory: INIT_CWD wins when it names an existing absolute directory", async () => {
  await using dir = await tempDir();
  assert.equal(userDirectory(envFrom({ INIT_CWD: dir.path }), "/elsewhere"), dir.path);
  assert.equal(userDirectory(envFrom({}), "/elsewhere"), "/elsewhere");
  assert.equal(userDirectory(envFrom({ INIT_CWD: "" }), "/elsewhere"), "/elsewhere");
  assert.equal(userDirectory(envFrom({ INIT_CWD: "relative/dir" }), "/elsewhere"), "/elsewhere");
  assert.equal(
    userDirectory(envFrom({ INIT_CWD: `${dir.path}/gone` }), "/elsewhere"),
    "/elsewhere",
    "a directory that no longer exists falls back to the process's own",
  );
});
