/**
 * @module `storage.backend` and its PostgreSQL keys: defaults, `${VAR}` references in `storage.url`
 * expanded only for PostgreSQL, and the refusals (no url, a literal password, an unset variable,
 * not a PostgreSQL URL), each naming the key and the fix.
 */
import assert from "node:assert/strict";
import { assertConfigError, load, loadYaml } from "./_config.ts";
import { tempDir } from "../helpers.ts";
import { writeText } from "../cli/_util.ts";

Deno.test("storage: the backend is sqlite by default", async () => {
  await using dir = await tempDir();
  assert.deepEqual(load(dir.path).storage, { backend: "sqlite" });
});

Deno.test("storage: postgres takes the url with its references expanded, and the pool settings", async () => {
  const { config } = await loadYaml([
    "storage:",
    "  backend: postgres",
    '  url: "${DATABASE_URL}"',
    "  pool_size: 4",
    '  statement_timeout_ms: "2500"',
    "  sslmode: verify-full",
  ], { DATABASE_URL: "postgres://engram@db.internal:5433/engram" });
  assert.deepEqual(config.storage, {
    backend: "postgres",
    url: "postgres://engram@db.internal:5433/engram",
    poolSize: 4,
    statementTimeoutMs: 2500,
    sslmode: "verify-full",
  });
});

Deno.test("storage: a password may be a reference inside the url; defaults fill the rest", async () => {
  const { config } = await loadYaml([
    "storage:",
    "  backend: postgres",
    '  url: "postgresql://engram:${PGPASSWORD}@127.0.0.1/engram"',
  ], { PGPASSWORD: "s3cret" });
  assert.deepEqual(config.storage, {
    backend: "postgres",
    url: "postgresql://engram:s3cret@127.0.0.1/engram",
    poolSize: 10,
    statementTimeoutMs: 30_000,
  });
});

Deno.test("storage: a url naming an unset variable still loads while the backend is sqlite", async () => {
  const { config } = await loadYaml(["storage:", '  url: "${DATABASE_URL}"']);
  assert.deepEqual(config.storage, { backend: "sqlite" });
});

Deno.test("storage: postgres refuses a missing url, a literal password, an unset variable, another scheme", async () => {
  await using dir = await tempDir();
  const refused = async (lines: string[], vars: Record<string, string>, ...patterns: string[]) => {
    const file = await writeText(dir.path, "engram.yaml", lines.join("\n") + "\n");
    const message = assertConfigError(() => load(dir.path, { config: file }, vars), ...patterns);
    assert.ok(!message.includes("hunter2"), `the password is never repeated: ${message}`);
  };
  await refused(
    ["storage:", "  backend: postgres"],
    {},
    "storage.url",
    'url: "${DATABASE_URL}"',
  );
  await refused(
    ["storage:", "  backend: postgres", "  url: postgres://engram:hunter2@db/engram"],
    {},
    "storage.url",
    "write the password as an environment reference",
  );
  await refused(
    ["storage:", "  backend: postgres", '  url: "${DATABASE_URL}"'],
    {},
    "${DATABASE_URL} is not set",
    "export DATABASE_URL",
  );
  await refused(
    ["storage:", "  backend: postgres", '  url: "${DATABASE_URL}"'],
    { DATABASE_URL: "mysql://engram:hunter2@db/engram" },
    "not a PostgreSQL URL",
    "the variable it names",
  );
});

Deno.test("storage: an unknown backend or sslmode is refused at its line", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "engram.yaml", "storage:\n  backend: mysql\n");
  assertConfigError(() => load(dir.path, { config: file }), "storage.backend", "sqlite");
  await writeText(dir.path, "engram.yaml", "storage:\n  sslmode: verify-ca\n");
  assertConfigError(() => load(dir.path, { config: file }), "storage.sslmode", "verify-full");
});
