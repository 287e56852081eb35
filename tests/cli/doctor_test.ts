/**
 * @module `engram doctor` and the CLI on a damaged database (docs/operations.md#corrupt-or-full-database):
 * real files, real subprocesses.
 */
import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { databaseWithNotes, overwriteDocumentPages } from "../storage/sqlite/_corrupt.ts";
import { assertFails, STACK_LINE } from "./_util.ts";

interface DoctorJson {
  ok: boolean;
  checks: { name: string; status: string; detail: string; fix?: string }[];
}

Deno.test("engram list on a database with overwritten pages: storage_corrupt, the file and the fix, exit 1", async () => {
  await using dir = await tempDir();
  const file = await databaseWithNotes(dir.path);
  await overwriteDocumentPages(file);
  const r = await runEngram(["list"], { dataDir: dir.path });
  assertFails(r, 1, `engram: storage_corrupt: database ${file} is corrupt`);
  assert.match(r.stderr, /engram restore FILE --force/);
  assert.match(r.stderr, /\.recover/);
  assert.doesNotMatch(r.stderr, /internal/);
});

Deno.test("engram doctor on a sound database: every check ok, exit 0", async () => {
  await using dir = await tempDir();
  const file = await databaseWithNotes(dir.path, 3);
  const r = await runEngram(["doctor"], { dataDir: dir.path });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.equal(r.stderr, "");
  for (
    const name of ["config", "data directory", "free space", "integrity_check", "fts:chunks_fts"]
  ) {
    assert.match(r.stdout, new RegExp(`^ok +${name}`, "m"), r.stdout);
  }
  assert.ok(r.stdout.includes(file));
  assert.match(r.stdout, /free for /);
  assert.match(r.stdout, /none, defaults apply/, "the config in use");
  assert.match(r.stdout, /all checks passed\n$/);
  const json = await runEngram(["doctor", "--json"], { dataDir: dir.path });
  assert.equal(json.code, 0);
  const report = JSON.parse(json.stdout) as DoctorJson;
  assert.equal(report.ok, true);
  assert.deepEqual(
    report.checks.filter((c) => c.status !== "ok").map((c) => c.name),
    [],
  );
  assert.ok(report.checks.some((c) => c.name === "fts:chunks_words"));
});

Deno.test("engram doctor on a damaged database: exit 1 naming the failed check and the fix", async () => {
  await using dir = await tempDir();
  const file = await databaseWithNotes(dir.path);
  await overwriteDocumentPages(file);
  const r = await runEngram(["doctor"], { dataDir: dir.path });
  assert.equal(r.code, 1, r.stderr + r.stdout);
  assert.match(r.stdout, /^fail +integrity_check +damaged: /m);
  assert.match(r.stdout, /^failed: .*integrity_check/m);
  assert.match(r.stdout, /^to repair: .*engram restore FILE --force/m);
  assert.doesNotMatch(r.stdout + r.stderr, STACK_LINE);
  const json = await runEngram(["doctor", "--json"], { dataDir: dir.path });
  assert.equal(json.code, 1);
  const report = JSON.parse(json.stdout) as DoctorJson;
  assert.equal(report.ok, false);
  const integrity = report.checks.find((c) => c.name === "integrity_check");
  assert.equal(integrity?.status, "fail");
  assert.match(integrity?.fix ?? "", /\.recover/);
});

Deno.test("engram doctor with a file that is not a database: the open check fails, exit 1", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/engram.db`, "not a database at all ".repeat(300));
  const r = await runEngram(["doctor", "--json"], { dataDir: dir.path });
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as DoctorJson;
  const open = report.checks.find((c) => c.name === "open");
  assert.equal(open?.status, "fail");
  assert.match(open?.detail ?? "", /not a database/);
});

Deno.test("engram doctor before first use: no database yet is fine, exit 0", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["doctor"], { dataDir: `${dir.path}/fresh`, cwd: dir.path });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /does not exist yet/);
  assert.match(r.stdout, /not created yet/);
});
