import assert from "node:assert/strict";
import { envFrom } from "../../src/config/env.ts";
import { locateConfig } from "../../src/config/config_file.ts";
import { loadConfig } from "../../src/config/load.ts";
import { EngramError } from "../../src/core/errors.ts";
import { ROOT, runEngram, tempDir } from "../helpers.ts";
import { assertFails, assertOk, exists, runJson, writeText } from "../cli/_util.ts";
import { assertConfigError, load } from "./_config.ts";

// --- search order -------------------------------------------------------------------------------

Deno.test("config: with no file anywhere, defaults apply and configFile is null", async () => {
  await using dir = await tempDir();
  const c = load(dir.path);
  assert.equal(c.configFile, null);
  assert.equal(c.logLevel, "info");
  assert.equal(c.stdioTier, "read");
  assert.equal(c.synchronous, "NORMAL");
  assert.deepEqual(c.server, { host: "127.0.0.1", port: 8787 });
  assert.equal(c.defaultBrain, undefined);
  assert.deepEqual(c.providers, []);
  assert.deepEqual(c.mcp, {
    stdio_allowed_commands: [],
    allowed_file_roots: [],
    review_keys: [],
    max_result_bytes: 10 * 1024 * 1024,
    request_timeout_ms: 30_000,
    elicitation_timeout_ms: 600_000,
    trace_retention_days: 30,
    mcp_servers: [],
    sources: {},
  });
  assert.equal(c.dataDir, `${dir.path}/xdg-data/engram`);
  assert.equal(c.dbFile, `${dir.path}/xdg-data/engram/engram.db`);
});

/** Writes one config in each searched place, each naming a different default brain. */
async function everyPlace(dir: string) {
  return {
    flag: await writeText(dir, "flag.yaml", "default_brain: from-flag\n"),
    env: await writeText(dir, "env.yaml", "default_brain: from-env\n"),
    cwd: await writeText(dir, "config/engram.yaml", "default_brain: from-cwd\n"),
    xdg: await writeText(dir, "xdg-config/engram/engram.yaml", "default_brain: from-xdg\n"),
  };
}

Deno.test("config search order: --config beats $ENGRAM_CONFIG, ./config and XDG", async () => {
  await using dir = await tempDir();
  const p = await everyPlace(dir.path);
  const c = load(dir.path, { config: p.flag }, { ENGRAM_CONFIG: p.env });
  assert.equal(c.configFile, p.flag);
  assert.equal(c.defaultBrain, "from-flag");
});

Deno.test("config search order: $ENGRAM_CONFIG beats ./config/engram.yaml and XDG", async () => {
  await using dir = await tempDir();
  const p = await everyPlace(dir.path);
  const c = load(dir.path, {}, { ENGRAM_CONFIG: p.env });
  assert.equal(c.configFile, p.env);
  assert.equal(c.defaultBrain, "from-env");
});

Deno.test("config search order: ./config/engram.yaml (relative to cwd) beats XDG", async () => {
  await using dir = await tempDir();
  const p = await everyPlace(dir.path);
  const c = load(dir.path);
  assert.equal(c.configFile, p.cwd);
  assert.equal(c.defaultBrain, "from-cwd");
});

Deno.test("config search order: $XDG_CONFIG_HOME/engram/engram.yaml is the last resort", async () => {
  await using dir = await tempDir();
  const p = await everyPlace(dir.path);
  await Deno.remove(p.cwd);
  const c = load(dir.path);
  assert.equal(c.configFile, p.xdg);
  assert.equal(c.defaultBrain, "from-xdg");
});

Deno.test("config search: ./config is looked up in the given cwd, not the process cwd", async () => {
  await using a = await tempDir();
  await using b = await tempDir();
  await writeText(a.path, "config/engram.yaml", "default_brain: in-a\n");
  const env = envFrom({ XDG_CONFIG_HOME: `${b.path}/none`, XDG_DATA_HOME: `${b.path}/d` });
  assert.equal(loadConfig({}, { env, cwd: a.path }).defaultBrain, "in-a");
  assert.equal(loadConfig({}, { env, cwd: b.path }).configFile, null);
});

Deno.test("config search: without XDG_CONFIG_HOME, ~/.config/engram/engram.yaml is used", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "home/.config/engram/engram.yaml", "log_level: debug\n");
  const env = envFrom({ HOME: `${dir.path}/home`, XDG_DATA_HOME: `${dir.path}/d` });
  const c = loadConfig({}, { env, cwd: dir.path });
  assert.equal(c.configFile, file);
  assert.equal(c.logLevel, "debug");
});

Deno.test("config search: a relative --config is resolved against cwd", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "conf/mine.yaml", "log_level: error\n");
  const c = load(dir.path, { config: "conf/mine.yaml" });
  assert.equal(c.configFile, file);
  assert.equal(c.logLevel, "error");
});

Deno.test("config search: --config ~/x.yaml expands the home directory", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "home/x.yaml", "log_level: error\n");
  assert.equal(load(dir.path, { config: "~/x.yaml" }).configFile, file);
});

Deno.test("config: a --config file that does not exist is an error naming the file and --config", async () => {
  await using dir = await tempDir();
  // Even with a usable ./config/engram.yaml there is no silent fallback.
  await writeText(dir.path, "config/engram.yaml", "log_level: info\n");
  assertConfigError(
    () => load(dir.path, { config: "missing.yaml" }),
    `${dir.path}/missing.yaml`,
    "--config",
    "does not exist",
  );
});

Deno.test("config: an $ENGRAM_CONFIG that does not exist is an error naming the file and variable", async () => {
  await using dir = await tempDir();
  assertConfigError(
    () => load(dir.path, {}, { ENGRAM_CONFIG: `${dir.path}/gone.yaml` }),
    `${dir.path}/gone.yaml`,
    "ENGRAM_CONFIG",
  );
});

Deno.test("config: --config pointing at a directory is an error, not a silent default", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/adir`);
  assertConfigError(() => load(dir.path, { config: "adir" }), `${dir.path}/adir`);
});

Deno.test("locateConfig finds no file when nothing is configured", async () => {
  await using dir = await tempDir();
  assert.equal(locateConfig({}, { env: envFrom({}), cwd: dir.path }).file, null);
});

// --- precedence: flags > env > file > defaults ------------------------------------------------

Deno.test("precedence: default_brain is --brain > ENGRAM_DEFAULT_BRAIN > file", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "default_brain: from-file\n");
  const env = { ENGRAM_DEFAULT_BRAIN: "from-env" };
  assert.equal(load(dir.path, { config: file, brain: "from-flag" }, env).defaultBrain, "from-flag");
  assert.equal(load(dir.path, { config: file }, env).defaultBrain, "from-env");
  assert.equal(load(dir.path, { config: file }).defaultBrain, "from-file");
});

Deno.test("precedence: tier is the flag > ENGRAM_TIER > stdio.tier > read", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "stdio:\n  tier: write\n");
  const env = { ENGRAM_TIER: "admin" };
  assert.equal(load(dir.path, { config: file, tier: "read" }, env).stdioTier, "read");
  assert.equal(load(dir.path, { config: file }, env).stdioTier, "admin");
  assert.equal(load(dir.path, { config: file }).stdioTier, "write");
  assert.equal(load(dir.path).stdioTier, "read");
});

Deno.test("precedence: log level is --log-level > ENGRAM_LOG_LEVEL > log_level > info", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "log_level: warning\n");
  const env = { ENGRAM_LOG_LEVEL: "error" };
  assert.equal(load(dir.path, { config: file, logLevel: "debug" }, env).logLevel, "debug");
  assert.equal(load(dir.path, { config: file }, env).logLevel, "error");
  assert.equal(load(dir.path, { config: file }).logLevel, "warning");
  assert.equal(load(dir.path).logLevel, "info");
});

Deno.test("precedence: data dir is --data > ENGRAM_DATA_DIR > data_dir in the file > XDG", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "data_dir: /srv/from-file\n");
  const env = { ENGRAM_DATA_DIR: "/srv/from-env" };
  assert.equal(
    load(dir.path, { config: file, data: "/srv/from-flag" }, env).dataDir,
    "/srv/from-flag",
  );
  assert.equal(load(dir.path, { config: file }, env).dataDir, "/srv/from-env");
  assert.equal(load(dir.path, { config: file }).dataDir, "/srv/from-file");
  assert.equal(load(dir.path).dataDir, `${dir.path}/xdg-data/engram`);
  assert.equal(load(dir.path, { config: file }).dbFile, "/srv/from-file/engram.db");
});

Deno.test("precedence: an empty environment variable counts as unset, so the file still applies", async () => {
  await using dir = await tempDir();
  const file = await writeText(
    dir.path,
    "c.yaml",
    "data_dir: /srv/from-file\ndefault_brain: from-file\nlog_level: warning\nstdio:\n  tier: write\n",
  );
  const c = load(dir.path, { config: file }, {
    ENGRAM_DATA_DIR: "",
    ENGRAM_DEFAULT_BRAIN: "",
    ENGRAM_LOG_LEVEL: "",
    ENGRAM_TIER: "",
    ENGRAM_CONFIG: "",
  });
  assert.equal(c.dataDir, "/srv/from-file");
  assert.equal(c.defaultBrain, "from-file");
  assert.equal(c.logLevel, "warning");
  assert.equal(c.stdioTier, "write");
});

Deno.test("config: server, storage and mcp settings from the file are applied", async () => {
  await using dir = await tempDir();
  const file = await writeText(
    dir.path,
    "c.yaml",
    [
      "server:",
      "  host: 0.0.0.0",
      "  port: 9000",
      "storage:",
      "  synchronous: full",
      "mcp:",
      "  stdio_allowed_commands: [npx]",
      "  allowed_file_roots: [~/notes, /srv/docs]",
      "  mcp_servers:",
      "    - name: files",
      "      transport: stdio",
      "      command: npx",
      "providers:",
      "  - type: openai",
      "    base_url: http://127.0.0.1:11434/v1",
      "    model: gpt-x",
      "",
    ].join("\n"),
  );
  const c = load(dir.path, { config: file });
  assert.deepEqual(c.server, { host: "0.0.0.0", port: 9000 });
  assert.equal(c.synchronous, "FULL");
  assert.deepEqual(c.mcp.stdio_allowed_commands, ["npx"]);
  assert.deepEqual(c.mcp.allowed_file_roots, [`${dir.path}/home/notes`, "/srv/docs"]);
  assert.equal(c.mcp.mcp_servers[0].name, "files");
  assert.equal(c.mcp.mcp_servers[0].transport, "stdio");
  assert.deepEqual(c.providers, [{
    type: "openai",
    base_url: "http://127.0.0.1:11434/v1",
    model: "gpt-x",
    timeout_ms: 60_000,
    max_retries: 2,
    max_tokens: 1024,
  }]);
});

Deno.test("config: an empty file, or one with only comments, means defaults", async () => {
  await using dir = await tempDir();
  for (const text of ["", "# nothing configured yet\n", "---\n"]) {
    const file = await writeText(dir.path, "c.yaml", text);
    const c = load(dir.path, { config: file });
    assert.equal(c.configFile, file);
    assert.equal(c.logLevel, "info");
    assert.deepEqual(c.server, { host: "127.0.0.1", port: 8787 });
  }
});

Deno.test("config: NO_COLOR set to anything non-empty turns colour off", async () => {
  await using dir = await tempDir();
  assert.equal(load(dir.path, {}, { NO_COLOR: "1" }).noColor, true);
  assert.equal(load(dir.path, {}, { NO_COLOR: "" }).noColor, false);
  assert.equal(load(dir.path).noColor, false);
});

// --- ${VAR} interpolation ---------------------------------------------------------------------

Deno.test("interpolation: ${VAR} is replaced in string values, nested and in lists", async () => {
  await using dir = await tempDir();
  const file = await writeText(
    dir.path,
    "c.yaml",
    [
      "data_dir: ${BASE}/data",
      "default_brain: ${TEAM}-${ENV_NAME}",
      "mcp:",
      '  allowed_file_roots: ["${BASE}/notes"]',
      "providers:",
      "  - type: openai",
      "    base_url: http://127.0.0.1:11434/v1",
      "    model: llama3.1",
      "    api_key: ${OPENAI_API_KEY}",
      "",
    ].join("\n"),
  );
  const c = load(dir.path, { config: file }, {
    BASE: "/srv/engram",
    TEAM: "ops",
    ENV_NAME: "prod",
    OPENAI_API_KEY: "sk-test-123",
  });
  assert.equal(c.dataDir, "/srv/engram/data");
  assert.equal(c.defaultBrain, "ops-prod");
  assert.deepEqual(c.mcp.allowed_file_roots, ["/srv/engram/notes"]);
  const provider = c.providers[0];
  assert.equal(provider.type === "openai" ? provider.api_key : null, "sk-test-123");
});

Deno.test("interpolation: $${VAR} is a literal ${VAR} and is not looked up", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "default_brain: cost-$${NOT_SET}\n");
  assert.equal(load(dir.path, { config: file }).defaultBrain, "cost-${NOT_SET}");
});

Deno.test("interpolation: a variable set to the empty string interpolates as empty", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "default_brain: a${EMPTY}b\n");
  assert.equal(load(dir.path, { config: file }, { EMPTY: "" }).defaultBrain, "ab");
});

Deno.test("interpolation: the value is inserted verbatim, never re-interpolated", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "default_brain: ${OUTER}\n");
  const c = load(dir.path, { config: file }, { OUTER: "${INNER}" });
  assert.equal(c.defaultBrain, "${INNER}");
});

Deno.test("interpolation: a reference inside a YAML comment is ignored", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "# api_key: ${NOT_SET}\nlog_level: info\n");
  assert.equal(load(dir.path, { config: file }).logLevel, "info");
});

Deno.test("interpolation: a missing variable is an error naming the key path, line and variable", async () => {
  await using dir = await tempDir();
  const file = await writeText(
    dir.path,
    "c.yaml",
    "log_level: info\nproviders:\n  - type: openai\n    api_key: ${OPENAI_API_KEY}\n",
  );
  assertConfigError(
    () => load(dir.path, { config: file }),
    `config ${file}:4 key providers.0.api_key:`,
    "${OPENAI_API_KEY}",
    "export OPENAI_API_KEY",
  );
});

Deno.test("interpolation: of several missing variables in one value, the first is named, exactly", async () => {
  await using dir = await tempDir();
  const file = await writeText(
    dir.path,
    "c.yaml",
    "default_brain: $${LITERAL}-${SET}-${FIRST_MISSING}-${SECOND_MISSING}\n",
  );
  assert.throws(() => load(dir.path, { config: file }, { SET: "x" }), (err: unknown) => {
    assert.ok(err instanceof EngramError);
    assert.equal(err.code, "invalid_argument");
    assert.equal(
      err.message,
      `config ${file}:1 key default_brain: \${FIRST_MISSING} is not set in the environment; export FIRST_MISSING or remove the reference`,
    );
    return true;
  });
});

Deno.test("interpolation: variables come from the given environment, not the process", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "default_brain: ${PATH}\n");
  // PATH is set in the test process but not in the snapshot handed to loadConfig.
  assertConfigError(() => load(dir.path, { config: file }), "${PATH}", ":1 key default_brain");
});

// --- errors: syntax, unknown keys, wrong types ------------------------------------------------

Deno.test("config: a YAML syntax error names the file and line", async () => {
  await using dir = await tempDir();
  const file = await writeText(
    dir.path,
    "c.yaml",
    "log_level: info\nserver:\n  host: [unclosed\n  port: 1\n",
  );
  const msg = assertConfigError(() => load(dir.path, { config: file }), `config ${file}:`);
  const line = Number(msg.match(/c\.yaml:(\d+)/)?.[1]);
  assert.ok(line >= 3 && line <= 5, `line ${line} should point at the broken flow list: ${msg}`);
});

Deno.test("config: a tab-indented YAML file is a syntax error with its line", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "log_level: info\nserver:\n\tport: 1\n");
  assertConfigError(() => load(dir.path, { config: file }), `config ${file}:3`);
});

Deno.test("config: a duplicated key is an error with the line of the second one", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "log_level: info\nlog_level: debug\n");
  assertConfigError(() => load(dir.path, { config: file }), `config ${file}:2`);
});

Deno.test("config: a misspelt top-level key is an error naming that key and its line", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "log_level: info\ndata_dri: /tmp/x\n");
  assertConfigError(
    () => load(dir.path, { config: file }),
    `config ${file}:2 key data_dri:`,
    /unknown key|unrecognized/i,
  );
});

Deno.test("config: a misspelt nested key is an error naming its full key path and line", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "server:\n  host: 0.0.0.0\n  prot: 9000\n");
  assertConfigError(() => load(dir.path, { config: file }), `config ${file}:3 key server.prot:`);
});

Deno.test("config: every misspelt key is reported, each with its own line", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "lgo_level: info\nstdio:\n  teir: write\n");
  assertConfigError(
    () => load(dir.path, { config: file }),
    `config ${file}:1 key lgo_level:`,
    `config ${file}:3 key stdio.teir:`,
  );
});

const WRONG_TYPES: [string, string, string, number][] = [
  ['port: "abc"', 'server:\n  port: "abc"\n', "server.port", 2],
  ["port: 70000", "server:\n  port: 70000\n", "server.port", 2],
  ["port: 80.5", "server:\n  port: 80.5\n", "server.port", 2],
  ["log_level: loud", "log_level: loud\n", "log_level", 1],
  ["stdio.tier: root", "# tiers\nstdio:\n  tier: root\n", "stdio.tier", 3],
  ["storage.synchronous: off", "storage:\n  synchronous: off\n", "storage.synchronous", 2],
  ["data_dir: 42", "data_dir: 42\n", "data_dir", 1],
  ["data_dir empty", 'data_dir: ""\n', "data_dir", 1],
  ["server as a list", "server:\n  - a\n", "server", 1],
  [
    "mcp_servers entry without a name",
    "mcp:\n  mcp_servers:\n    - transport: stdio\n",
    "mcp.mcp_servers.0",
    3,
  ],
];

for (const [label, yaml, keyPath, line] of WRONG_TYPES) {
  Deno.test(`config: a wrong type (${label}) is an error with key ${keyPath} and line ${line}`, async () => {
    await using dir = await tempDir();
    const file = await writeText(dir.path, "c.yaml", yaml);
    assertConfigError(
      () => load(dir.path, { config: file }),
      `config ${file}:${line} key ${keyPath}`,
    );
  });
}

Deno.test("config: a top-level list or scalar is an error, not a crash", async () => {
  await using dir = await tempDir();
  for (const text of ["- a\n- b\n", "just a string\n", "42\n"]) {
    const file = await writeText(dir.path, "c.yaml", text);
    assertConfigError(() => load(dir.path, { config: file }), `config ${file}`, "(top level)");
  }
});

Deno.test("config: an invalid tier from the flag or ENGRAM_TIER is a clear error", async () => {
  await using dir = await tempDir();
  assertConfigError(
    () => load(dir.path, { tier: "root" }),
    'invalid tier "root"',
    "read, write, admin",
  );
  assertConfigError(() => load(dir.path, {}, { ENGRAM_TIER: "sudo" }), 'invalid tier "sudo"');
});

Deno.test("config: an invalid log level from the flag or ENGRAM_LOG_LEVEL is a clear error", async () => {
  await using dir = await tempDir();
  assertConfigError(
    () => load(dir.path, { logLevel: "loud" }),
    'invalid log level "loud"',
    "debug",
  );
  assertConfigError(
    () => load(dir.path, {}, { ENGRAM_LOG_LEVEL: "trace" }),
    'invalid log level "trace"',
  );
});

// --- the documented example -------------------------------------------------------------------

// The shipped example is config/engram.example.yaml: at ./config/engram.yaml it would be loaded as
// the user's own config by every engram run from the clone (docs/configuration.md#where-the-config-is-read-from).
const EXAMPLE = `${ROOT}config/engram.example.yaml`;

Deno.test("the documented example config/engram.example.yaml loads without error (given the variables it references)", async () => {
  await using dir = await tempDir();
  const text = await Deno.readTextFile(EXAMPLE);
  const vars: Record<string, string> = {};
  for (const m of text.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) vars[m[1]] = "x";
  const c = load(dir.path, { config: EXAMPLE }, vars);
  assert.equal(c.configFile, EXAMPLE);
  assert.ok(["read", "write", "admin"].includes(c.stdioTier));
  // Copied to the user's file, as the docs say to, it is found there.
  const copy = await writeText(dir.path, "xdg-config/engram/engram.yaml", text);
  assert.equal(load(dir.path, {}, vars).configFile, copy);
});

Deno.test("engram run in the repository root does not load the example as the user's config", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["config", "path", "--json"], { dataDir: dir.path, cwd: ROOT });
  assertOk(r);
  const at = JSON.parse(r.stdout) as { file: string | null; searched: { path: string | null }[] };
  assert.ok(at.searched.every((p) => p.path !== EXAMPLE), "the example is in no searched place");
  assert.notEqual(at.file, EXAMPLE);
  const brains = await runEngram(["brains", "list", "--json"], { dataDir: dir.path, cwd: ROOT });
  assertOk(brains);
  assert.deepEqual(JSON.parse(brains.stdout).items.map((b: { slug: string }) => b.slug), [
    "default",
  ]);
  assert.equal(await exists(`${dir.path}/engram.db`), true, "ENGRAM_DATA_DIR still wins");
});

// --- through the CLI ----------------------------------------------------------------------------

Deno.test("CLI: an invalid config file exits 2 with config <file>:<line> key <path> on stderr", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "bad.yaml", 'log_level: info\nserver:\n  port: "abc"\n');
  const r = await runEngram(["brains", "list", "--config", file], { dataDir: dir.path });
  assertFails(r, 2, `engram: config ${file}:3 key server.port: `);
  assert.equal(
    await exists(`${dir.path}/engram.db`),
    false,
    "a bad config must stop before the db",
  );
});

Deno.test("CLI: a misspelt key exits 2 naming the key and line", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "config/engram.yaml", "log_level: info\ndefault_brian: x\n");
  const r = await runEngram(["brains", "list"], { dataDir: dir.path });
  assertFails(r, 2, `config ${dir.path}/config/engram.yaml:2 key default_brian:`);
});

Deno.test("CLI: a YAML syntax error exits 2 with the file and line", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "bad.yaml", "a: 1\na: 2\n");
  const r = await runEngram(["search", "x", "--config", file], { dataDir: dir.path });
  assertFails(r, 2, `engram: config ${file}:2: `);
});

Deno.test("CLI: a missing ${VAR} exits 2 naming the key, line and variable", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "default_brain: ${ENGRAM_TEST_UNSET}\n");
  const r = await runEngram(["brains", "list", "--config", file], { dataDir: dir.path });
  assertFails(r, 2, `config ${file}:1 key default_brain: \${ENGRAM_TEST_UNSET} is not set`);
});

Deno.test("CLI: --config naming a missing file exits 2 naming it", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "list", "--config", "nope.yaml"], { dataDir: dir.path });
  assertFails(r, 2, `config file ${dir.path}/nope.yaml (from --config) does not exist`);
});

Deno.test("CLI: $ENGRAM_CONFIG naming a missing file exits 2 naming it", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "list"], {
    dataDir: dir.path,
    env: { ENGRAM_CONFIG: `${dir.path}/nope.yaml` },
  });
  assertFails(r, 2, `config file ${dir.path}/nope.yaml (from ENGRAM_CONFIG) does not exist`);
});

Deno.test("CLI: ./config/engram.yaml in the working directory is picked up", async () => {
  await using dir = await tempDir();
  const notes = await runJson<{ id: string }>(["brains", "create", "Notes", "--json"], {
    dataDir: dir.path,
  });
  await writeText(dir.path, "config/engram.yaml", "default_brain: notes\n");
  const doc = await runJson<{ brain_id: string }>(["remember", "-", "--json"], {
    dataDir: dir.path,
    stdin: "# In notes\n\nhello\n",
  });
  assert.equal(doc.brain_id, notes.id);
});

Deno.test("CLI: ENGRAM_DEFAULT_BRAIN overrides default_brain from the file", async () => {
  await using dir = await tempDir();
  const work = await runJson<{ id: string }>(["brains", "create", "Work", "--json"], {
    dataDir: dir.path,
  });
  await writeText(dir.path, "config/engram.yaml", "default_brain: does-not-exist\n");
  const doc = await runJson<{ brain_id: string }>(["remember", "-", "--json"], {
    dataDir: dir.path,
    stdin: "# At work\n\nhello\n",
    env: { ENGRAM_DEFAULT_BRAIN: "work" },
  });
  assert.equal(doc.brain_id, work.id);
});

Deno.test("CLI: a default_brain that does not exist exits 1 with the brain hint", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "config/engram.yaml", "default_brain: ghost\n");
  const r = await runEngram(["brains", "list"], { dataDir: dir.path });
  assertFails(r, 1, `brain "ghost" not found; list brains with: engram brains list`);
});

Deno.test("CLI: stdio --tier root exits 2 with the invalid tier message", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["stdio", "--tier", "root"], { dataDir: dir.path, stdin: "" });
  assertFails(r, 2, `engram: invalid tier "root"; use one of read, write, admin`);
});

Deno.test("CLI: --log-level loud exits 2 naming the valid levels", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["brains", "list", "--log-level", "loud"], { dataDir: dir.path });
  assertFails(r, 2, /invalid log level "loud"; use one of debug, info/);
});

Deno.test("CLI: a valid config file does not disturb normal output", async () => {
  await using dir = await tempDir();
  const file = await writeText(
    dir.path,
    "ok.yaml",
    "log_level: error\nstorage:\n  synchronous: full\nserver:\n  port: 9999\n",
  );
  const r = await runEngram(["brains", "list", "--config", file, "--json"], { dataDir: dir.path });
  assertOk(r);
  assert.deepEqual(JSON.parse(r.stdout).items.map((b: { slug: string }) => b.slug), ["default"]);
});

Deno.test("config: server.port may come from ${VAR} (interpolated strings are coerced to numbers)", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", "server:\n  port: ${ENGRAM_PORT}\n");
  assert.equal(load(dir.path, { config: file }, { ENGRAM_PORT: "9999" }).server.port, 9999);
  assertConfigError(
    () => load(dir.path, { config: file }, { ENGRAM_PORT: "not-a-port" }),
    /c\.yaml:2 key server\.port: /,
  );
});

Deno.test("config: --config naming a directory says it is a directory", async () => {
  await using dir = await tempDir();
  assertConfigError(() => load(dir.path, { config: dir.path }), "is a directory, not a YAML file");
});

Deno.test("providers: a literal api_key is refused with its line; a bad type names the key", async () => {
  await using dir = await tempDir();
  const literal = await writeText(
    dir.path,
    "literal.yaml",
    "providers:\n  - type: anthropic\n    model: claude\n    api_key: sk-ant-literal\n",
  );
  assert.throws(
    () => load(dir.path, { config: literal }),
    (e: unknown) =>
      e instanceof EngramError &&
      /literal\.yaml:4 key providers\.0\.api_key: write the key as an environment reference/
        .test(e.message) &&
      !e.message.includes("sk-ant-literal"),
  );
  const badType = await writeText(dir.path, "type.yaml", "providers:\n  - type: gemini\n");
  assert.throws(
    () => load(dir.path, { config: badType }),
    (e: unknown) => e instanceof EngramError && /key providers\.0\.type/.test(e.message),
  );
  const noModel = await writeText(
    dir.path,
    "model.yaml",
    "providers:\n  - type: openai\n    base_url: http://127.0.0.1:1/v1\n",
  );
  assert.throws(
    () => load(dir.path, { config: noModel }),
    (e: unknown) => e instanceof EngramError && /key providers\.0\.model/.test(e.message),
  );
  const ok = await writeText(
    dir.path,
    "ok.yaml",
    "providers:\n  - type: sampling\n  - type: extractive\nconsolidate:\n  promote_after_sessions: 3\n",
  );
  const c = load(dir.path, { config: ok });
  assert.deepEqual(c.providers.map((p) => p.type), ["sampling", "extractive"]);
  assert.equal(c.consolidate.promote_after_sessions, 3);
  assert.equal(c.consolidate.prune_episodes_after_days, 90);
});

Deno.test('config: server.port "eighty" says it must be a whole number, with the file, line and value', async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", 'server:\n  port: "eighty"\n');
  const message = assertConfigError(
    () => load(dir.path, { config: file }),
    `config ${file}:2 key server.port: must be a whole number 0..65535, got "eighty"`,
  );
  assert.doesNotMatch(message, /NaN|expected number/);
});

const NUMBER_REFUSALS: [string, string, string][] = [
  ["server:\n  port: 70000\n", "server.port", "must be a whole number 0..65535, got 70000"],
  ["server:\n  port: 80.5\n", "server.port", "must be a whole number 0..65535, got 80.5"],
  ["server:\n  port:\n", "server.port", "must be a whole number 0..65535, got null"],
  ["server:\n  requests_per_minute: 0\n", "server.requests_per_minute", "1 or more, got 0"],
  [
    "storage:\n  search_cache_mb: lots\n",
    "storage.search_cache_mb",
    'a number 0..4096, got "lots"',
  ],
  [
    "providers:\n  - type: sampling\n    max_tokens: many\n",
    "providers.0.max_tokens",
    'must be a whole number 16..200000, got "many"',
  ],
];

for (const [yaml, key, expected] of NUMBER_REFUSALS) {
  Deno.test(`config: ${key} refused in plain words (${expected})`, async () => {
    await using dir = await tempDir();
    const file = await writeText(dir.path, "c.yaml", yaml);
    assertConfigError(() => load(dir.path, { config: file }), `key ${key}: `, expected);
  });
}

Deno.test("config: numbers given as strings (from ${VAR}) still count, decimals where allowed", async () => {
  await using dir = await tempDir();
  const file = await writeText(
    dir.path,
    "c.yaml",
    'server:\n  port: " 9090 "\nstorage:\n  search_cache_mb: "0.5"\n',
  );
  const c = load(dir.path, { config: file });
  assert.equal(c.server.port, 9090);
  assert.equal(c.searchCacheMb, 0.5);
});

Deno.test('CLI: server.port "eighty" exits 2 naming the file, key and value', async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "c.yaml", 'server:\n  port: "eighty"\n');
  const r = await runEngram(["brains", "list", "--config", file], { dataDir: dir.path });
  assertFails(
    r,
    2,
    `engram: config ${file}:2 key server.port: must be a whole number 0..65535, got "eighty"`,
  );
});
