/** @module Subprocess tests of `engram export` and `engram import` (the real CLI, real folders and SQLite). */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runEngram, tempDir } from "../helpers.ts";
import {
  assertFails,
  assertOk,
  exists,
  HAS_SCRIPT,
  runEngramOnTerminal,
  runJson,
} from "./_util.ts";

/** The fixture vault: six notes, a dot-folder and a non-markdown file. */
const FIXTURE = fileURLToPath(new URL("../fixtures/vault", import.meta.url));

interface ImportSummary {
  brain_id: string;
  brain_slug: string;
  dir: string;
  files: number;
  imported: number;
  unchanged: number;
  failed: { file: string; error: string }[];
}

interface ExportSummary {
  brain_slug: string;
  dir: string;
  documents: number;
  failed: { file: string; error: string }[];
}

/** Copies a folder tree. */
async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyDir(`${from}/${e.name}`, `${to}/${e.name}`);
    else await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/** Every file under `dir`, relative path → text. */
async function readTree(dir: string, rel = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir(`${dir}${rel}`)) {
    const name = `${rel}/${e.name}`;
    if (e.isDirectory) { for (const [k, v] of await readTree(dir, name)) out.set(k, v); }
    else out.set(name, await Deno.readTextFile(`${dir}${name}`));
  }
  return out;
}

Deno.test("engram import DIR --json imports the vault's notes and prints the summary", async () => {
  await using dir = await tempDir();
  const summary = await runJson<ImportSummary>(["import", FIXTURE, "--json"], {
    dataDir: dir.path,
  });
  assert.equal(summary.brain_slug, "default");
  assert.equal(summary.dir, FIXTURE);
  assert.deepEqual(
    [summary.files, summary.imported, summary.unchanged, summary.failed.length],
    [6, 6, 0, 0],
  );
  const again = await runJson<ImportSummary>(["import", FIXTURE, "--json"], { dataDir: dir.path });
  assert.deepEqual(
    [again.imported, again.unchanged],
    [0, 6],
    "an unchanged vault makes no version",
  );
});

Deno.test("engram import DIR prints one summary line for people, relative DIR resolved from the cwd", async () => {
  await using dir = await tempDir();
  await copyDir(FIXTURE, `${dir.path}/my vault`);
  const r = await runEngram(["import", "my vault"], { dataDir: dir.path });
  assertOk(r);
  assert.equal(
    r.stdout,
    `imported 6 of 6 files into brain "default" from ${dir.path}/my vault (0 unchanged, 0 failed)\n`,
  );
});

Deno.test("export, import into brain b and export again give the same files apart from the id", async () => {
  await using dir = await tempDir();
  const opts = { dataDir: dir.path };
  assertOk(await runEngram(["import", FIXTURE], opts));
  const first = await runJson<ExportSummary>(["export", "out-a", "--json"], opts);
  assert.deepEqual([first.documents, first.failed.length], [6, 0]);
  assert.equal(first.dir, `${dir.path}/out-a`);
  assertOk(await runEngram(["brains", "create", "B", "--slug", "b"], opts));
  const imported = await runJson<ImportSummary>(
    ["import", "out-a", "--brain", "b", "--json"],
    opts,
  );
  assert.deepEqual([imported.brain_slug, imported.imported, imported.failed.length], ["b", 6, 0]);
  const r = await runEngram(["export", "out-b", "--brain", "b"], opts);
  assertOk(r);
  assert.equal(r.stdout, `exported 6 documents from brain "b" to ${dir.path}/out-b\n`);
  const a = await readTree(`${dir.path}/out-a`);
  const b = await readTree(`${dir.path}/out-b`);
  assert.deepEqual([...a.keys()].sort(), [
    "/Home.md",
    "/notes/Café ☕.md",
    "/projects/2024/q1/plan.md",
    "/projects/empty.md",
    "/projects/engram.md",
    "/日本/東京.md",
  ]);
  // Front matter read by the CLI (env revoked) survives: title, tags as a list, other keys.
  assert.match(
    a.get("/notes/Café ☕.md")!,
    /^---\ntitle: Café notes\ntags:\n {2}- coffee\n {2}- food\nrating: 5\nengram:\n {2}id: doc_\w+\n[^]*---\n\nEspresso/,
  );
  const noId = (t: string) => t.replace(/^ {2}id: doc_\w+\n/m, "");
  for (const [file, text] of a) {
    assert.match(text, /^---\ntitle: [^]*\nengram:\n {2}id: doc_\w+\n/, file);
    assert.notEqual(text, b.get(file), `${file}: brain b has new ids`);
    assert.equal(noId(b.get(file)!), noId(text), file);
  }
});

Deno.test("engram import with a binary .md among good notes imports the rest, lists it and exits 1", async () => {
  await using dir = await tempDir();
  const vault = `${dir.path}/vault`;
  await copyDir(FIXTURE, vault);
  await Deno.writeFile(`${vault}/notes/photo.md`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff]));
  const r = await runEngram(["import", vault], { dataDir: dir.path });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^imported 6 of 7 files .*\(0 unchanged, 1 failed\)\n$/);
  assert.match(r.stderr, /^failed: notes\/photo\.md: notes\/photo\.md is not UTF-8 text/m);
  assert.match(r.stderr, /1 file could not be imported/);
  const json = await runEngram(["import", vault, "--json"], { dataDir: dir.path });
  assert.equal(json.code, 1);
  const summary = JSON.parse(json.stdout) as ImportSummary;
  assert.deepEqual([summary.unchanged, summary.failed.map((f) => f.file)], [6, ["notes/photo.md"]]);
});

Deno.test("engram import of a missing folder exits 1 naming it, before creating a database", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["import", "no-such-vault"], { dataDir: dir.path });
  assertFails(r, 1, `vault folder ${dir.path}/no-such-vault does not exist`);
  assert.equal(await exists(`${dir.path}/engram.db`), false);
});

Deno.test("engram import of a file instead of a folder exits 2", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/note.md`, "# Note\n");
  assertFails(
    await runEngram(["import", "note.md"], { dataDir: dir.path }),
    2,
    /is a file, not a folder/,
  );
});

Deno.test("engram export to a file instead of a folder exits 2", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/out`, "x");
  assertFails(
    await runEngram(["export", "out"], { dataDir: dir.path }),
    2,
    /is a file, not a folder/,
  );
});

Deno.test("engram import and export of an unknown brain exit 1 and write nothing", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["import", FIXTURE, "--brain", "nope"], { dataDir: dir.path });
  assertFails(r, 1, /brain "nope" not found/);
  const e = await runEngram(["export", "out", "--brain", "nope"], { dataDir: dir.path });
  assertFails(e, 1, /brain "nope" not found/);
  assert.equal(await exists(`${dir.path}/out`), false);
});

Deno.test("engram import and export without DIR are usage errors (exit 2)", async () => {
  await using dir = await tempDir();
  for (const cmd of ["import", "export"]) {
    assertFails(await runEngram([cmd], { dataDir: dir.path }), 2, `usage: engram ${cmd} DIR`);
  }
});

Deno.test("engram import/export --help print usage on stdout, and engram --help lists both", async () => {
  await using dir = await tempDir();
  for (const cmd of ["import", "export"]) {
    const r = await runEngram([cmd, "--help"], { dataDir: dir.path });
    assertOk(r);
    assert.match(r.stdout, new RegExp(`usage: engram ${cmd} DIR \\[--brain SLUG\\] \\[--json\\]`));
    assert.match(r.stdout, /--brain SLUG/);
  }
  const main = await runEngram(["--help"], { dataDir: dir.path });
  assertOk(main);
  assert.match(main.stdout, /^ {2}export DIR\s+\S/m);
  assert.match(main.stdout, /^ {2}import DIR\s+\S/m);
});

Deno.test({
  name: "on a terminal engram import shows a progress bar that ends at the file count",
  ignore: !HAS_SCRIPT,
  fn: async () => {
    await using dir = await tempDir();
    const r = await runEngramOnTerminal(["import", FIXTURE], { dataDir: dir.path });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /importing .* 6\/6/);
    assert.match(r.stdout, /imported 6 of 6 files/);
  },
});

Deno.test("engram import of a vault with a note whose front matter does not parse imports it, warns on stderr and exits 0", async () => {
  await using dir = await tempDir();
  const vault = `${dir.path}/vault`;
  await copyDir(FIXTURE, vault);
  const broken = "---\ntitle: Broken plan\ntags: [a, b\n---\nStill imported.\n";
  await Deno.writeTextFile(`${vault}/notes/broken.md`, broken);
  const r = await runEngram(["import", vault], { dataDir: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^imported 7 of 7 files .*\(0 unchanged, 0 failed\)\n$/);
  assert.equal(
    r.stderr,
    "warning: notes/broken.md:3: front matter does not parse (line 3: unclosed flow sequence: a [ without its ]); stored it as part of the text, and read the title from line 2\n",
  );
  const json = await runEngram(["import", vault, "--json"], { dataDir: dir.path });
  assert.equal(json.code, 0, json.stderr);
  const summary = JSON.parse(json.stdout) as ImportSummary & {
    warnings: { file: string; line: number }[];
  };
  assert.deepEqual(summary.warnings.map((w) => [w.file, w.line]), [["notes/broken.md", 3]]);
  const got = await runEngram(["get", "/notes/broken.md", "--json"], { dataDir: dir.path });
  const doc = JSON.parse(got.stdout) as { title: string; content: string };
  assert.deepEqual([doc.title, doc.content], ["Broken plan", broken]);
});
