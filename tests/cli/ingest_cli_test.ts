import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { minimalPdf } from "../fixtures/ingest/fixtures.ts";
import {
  ANSI,
  assertFails,
  assertOk,
  HAS_SCRIPT,
  runEngramOnTerminal,
  runJson,
  STACK_LINE,
  writeText,
} from "./_util.ts";

interface Summary {
  total: number;
  ingested: number;
  unchanged: number;
  failed: { source: string; error: string }[];
  skipped: { source: string; reason: string }[];
  duration_ms: number;
  documents: {
    source: string;
    path: string;
    document_id: string;
    chunk_count: number;
    reused: boolean;
  }[];
}

/** The summary line `engram ingest` prints (the duration varies). */
function summaryLine(
  ingested: number,
  unchanged: number,
  failed: number,
  total: number,
  tail = "",
): RegExp {
  return new RegExp(
    `^ingested ${ingested}, unchanged ${unchanged}, failed ${failed} of ${total} in \\d+\\.\\d s${tail}\\n$`,
  );
}

/** What the vault's walk leaves out, as the summary line says it. */
const VAULT_SKIPPED = "; skipped 1 of unknown format: photo\\.heic; --as reads them";

/** A data dir with `vault/`: nested folders, unicode names, a pdf, and things the walk skips. */
async function withVault() {
  const dir = await tempDir();
  const vault = `${dir.path}/vault`;
  await writeText(vault, "inbox.md", "# Inbox\n\nCall the piano tuner on Friday.\n");
  await writeText(vault, "projects/kayak/plan.md", "# Kayak plan\n\nPaddle to the lighthouse.\n");
  await writeText(vault, "Заметки/日記.md", "# 日記\n\nSaw a heron by the canal.\n");
  await writeText(vault, "café notes.txt", "Order oat milk for the espresso machine.\n");
  await Deno.writeFile(`${vault}/projects/census.pdf`, minimalPdf(["Quarterly zebrafish census"]));
  // Skipped: dot-folders, unknown formats, .gitignore'd files.
  await writeText(vault, ".obsidian/workspace.json", '{"theme": "dark"}');
  await writeText(vault, "attachments/photo.heic", "not really a photo");
  await writeText(vault, ".gitignore", "scratch/\n");
  await writeText(vault, "scratch/tmp.md", "# Scratch\n");
  return { dir: dir.path, vault, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

const VAULT_PATHS = [
  "/ingest/vault/café notes.txt",
  "/ingest/vault/inbox.md",
  "/ingest/vault/projects/census.pdf",
  "/ingest/vault/projects/kayak/plan.md",
  "/ingest/vault/Заметки/日記.md",
];

async function searchPaths(dataDir: string, query: string): Promise<string[]> {
  const r = await runJson<{ hits: { path: string }[] }>(["search", query, "--json"], { dataDir });
  return [...new Set(r.hits.map((h) => h.path))];
}

Deno.test("engram ingest FOLDER stores every readable file, prints one summary line; again: all unchanged", async () => {
  await using v = await withVault();
  const first = await runEngram(["ingest", "vault"], { dataDir: v.dir });
  assertOk(first);
  assert.match(first.stdout, summaryLine(5, 0, 0, 5, VAULT_SKIPPED));
  assert.doesNotMatch(first.stdout + first.stderr, /ingesting|█|░/, "no progress bar when piped");

  const second = await runEngram(["ingest", v.vault], { dataDir: v.dir });
  assertOk(second);
  assert.match(second.stdout, summaryLine(0, 5, 0, 5, VAULT_SKIPPED));

  assert.deepEqual(await searchPaths(v.dir, "heron"), ["/ingest/vault/Заметки/日記.md"]);
  assert.deepEqual(await searchPaths(v.dir, "zebrafish"), ["/ingest/vault/projects/census.pdf"]);
  assert.deepEqual(await searchPaths(v.dir, "espresso"), ["/ingest/vault/café notes.txt"]);
  assert.deepEqual(await searchPaths(v.dir, "scratch"), [], ".gitignore'd files are not stored");
});

Deno.test("engram ingest --json prints {total, ingested, unchanged, failed, duration_ms, documents}", async () => {
  await using v = await withVault();
  const s = await runJson<Summary>(["ingest", "vault", "--json"], { dataDir: v.dir });
  assert.deepEqual(Object.keys(s).sort(), [
    "documents",
    "duration_ms",
    "failed",
    "ingested",
    "skipped",
    "total",
    "unchanged",
  ]);
  assert.deepEqual(s.skipped, [{
    source: `${v.vault}/attachments/photo.heic`,
    reason: "unknown format (give --as to read it anyway)",
  }]);
  assert.equal(s.total, 5);
  assert.equal(s.ingested, 5);
  assert.equal(s.unchanged, 0);
  assert.deepEqual(s.failed, []);
  assert.ok(Number.isInteger(s.duration_ms) && s.duration_ms >= 0);
  assert.deepEqual(s.documents.map((d) => d.path), VAULT_PATHS);
  for (const d of s.documents) {
    assert.deepEqual(Object.keys(d).sort(), [
      "chunk_count",
      "document_id",
      "path",
      "reused",
      "source",
    ]);
    assert.match(d.document_id, /^doc_/);
    assert.ok(d.chunk_count > 0);
    assert.equal(d.reused, false);
    assert.equal(d.source, `${v.vault}/${d.path.slice("/ingest/vault/".length)}`);
  }
  const again = await runJson<Summary>(["ingest", "vault", "--json"], { dataDir: v.dir });
  assert.equal(again.unchanged, 5);
  assert.equal(again.ingested, 0);
  assert.ok(again.documents.every((d) => d.reused));
  assert.deepEqual(
    again.documents.map((d) => d.document_id),
    s.documents.map((d) => d.document_id),
  );
});

Deno.test("engram ingest: one bad file fails alone — listed on stderr, the rest stored, exit 1", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "mixed/good-one.md", "# One\n\nThe ferry leaves at noon.\n");
  await writeText(dir.path, "mixed/good-two.md", "# Two\n\nThe bakery opens at six.\n");
  await Deno.writeFile(`${dir.path}/mixed/bad.md`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1]));
  const r = await runEngram(["ingest", "mixed"], { dataDir: dir.path });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, summaryLine(2, 0, 1, 3));
  assert.equal(
    r.stderr,
    `failed: ${dir.path}/mixed/bad.md: invalid_argument: ${dir.path}/mixed/bad.md looks binary (it contains NUL bytes), not text\n`,
  );
  assert.doesNotMatch(r.stderr, STACK_LINE);
  assert.deepEqual(await searchPaths(dir.path, "ferry"), ["/ingest/mixed/good-one.md"]);
  assert.deepEqual(await searchPaths(dir.path, "bakery"), ["/ingest/mixed/good-two.md"]);
});

Deno.test("engram ingest --glob and --exclude restrict which files of a folder are read", async () => {
  await using v = await withVault();
  const md = await runJson<Summary>(["ingest", "vault", "--glob", "**/*.md", "--json"], {
    dataDir: v.dir,
  });
  assert.deepEqual(md.documents.map((d) => d.path), [
    "/ingest/vault/inbox.md",
    "/ingest/vault/projects/kayak/plan.md",
    "/ingest/vault/Заметки/日記.md",
  ]);
  const rest = await runJson<Summary>(
    ["ingest", "vault", "--exclude", "projects/", "--exclude", "*.md", "--json"],
    { dataDir: v.dir },
  );
  assert.deepEqual(rest.documents.map((d) => d.path), ["/ingest/vault/café notes.txt"]);
  assert.equal(rest.total, 1);
});

Deno.test("engram ingest FILE stores a single file at /ingest/<name>; a missing path fails with exit 1", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "deep/er/recipe.md", "# Bread\n\nKnead for ten minutes.\n");
  const one = await runJson<Summary>(["ingest", "deep/er/recipe.md", "--json"], {
    dataDir: dir.path,
  });
  assert.deepEqual(one.documents.map((d) => d.path), ["/ingest/recipe.md"]);
  assert.equal(one.documents[0].source, "deep/er/recipe.md");

  const r = await runEngram(["ingest", "nope.md", "deep/er/recipe.md"], { dataDir: dir.path });
  assert.equal(r.code, 1);
  assert.match(r.stdout, summaryLine(0, 1, 1, 2));
  assert.equal(
    r.stderr,
    `failed: nope.md: not_found: file nope.md does not exist (or is a broken link, tried ${dir.path}/nope.md)\n`,
  );
  assert.deepEqual(await searchPaths(dir.path, "knead"), ["/ingest/recipe.md"]);
});

Deno.test("engram ingest --as: a bogus format is a usage error (exit 2); a real one reads any extension", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "notes/journal.entry", "Tuesday: the lilacs bloomed.\n");
  const bad = await runEngram(["ingest", "notes", "--as", "bogus"], { dataDir: dir.path });
  assertFails(bad, 2, '--as must be one of markdown, text, pdf, json, got "bogus"');

  // Without --as a folder's unknown formats are skipped, leaving nothing to ingest.
  const none = await runEngram(["ingest", "notes"], { dataDir: dir.path });
  assertFails(
    none,
    2,
    "nothing to ingest: the folders hold no readable files (skipped 1 of unknown format: journal.entry; --as reads them)",
  );

  const r = await runJson<Summary>(["ingest", "notes", "--as", "text", "--json"], {
    dataDir: dir.path,
  });
  assert.deepEqual(r.documents.map((d) => d.path), ["/ingest/notes/journal.entry"]);
  assert.deepEqual(await searchPaths(dir.path, "lilacs"), ["/ingest/notes/journal.entry"]);
});

Deno.test("engram ingest on a terminal shows a progress bar, then the summary", async () => {
  if (!HAS_SCRIPT) {
    console.log(
      "skipped: util-linux `script` is not installed, so no pseudo-terminal is available",
    );
    return;
  }
  await using v = await withVault();
  const r = await runEngramOnTerminal(["ingest", "vault"], { dataDir: v.dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  // The bar is redrawn in place; its last state names the count of files done.
  const screen = r.stdout.replaceAll(new RegExp(ANSI.source, "g"), "");
  assert.match(screen, /ingesting .*5\/5/);
  assert.match(screen, /ingested 5, unchanged 0, failed 0 of 5 in \d+\.\d s; skipped 1 /);
  // Nothing of the bar is drawn after the summary.
  const after = screen.slice(screen.indexOf("ingested 5,"));
  assert.doesNotMatch(after.split("\n").slice(1).join("\n"), /ingesting|█|░/);
});

Deno.test("engram ingest of a note whose front matter does not parse stores it, warns on stderr (exit 0) and lists the warning in --json", async () => {
  await using dir = await tempDir();
  const broken = "---\ntitle: Plan\ntags: [a, b\n---\nbody\n";
  await writeText(dir.path, "notes/plan.md", broken);
  await writeText(dir.path, "notes/clean.md", "# Clean\n\nNothing wrong here.\n");
  const r = await runEngram(["ingest", "notes"], { dataDir: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, summaryLine(2, 0, 0, 2));
  assert.equal(
    r.stderr,
    `warning: ${dir.path}/notes/plan.md:3: front matter does not parse (line 3: unclosed flow sequence: a [ without its ]); stored it as part of the text, and read the title from line 2\n`,
  );
  await writeText(dir.path, "seven.md", "---\ntags: 7\n---\nLucky.\n");
  const json = await runEngram(["ingest", "seven.md", "--json"], { dataDir: dir.path });
  assert.equal(json.code, 0, json.stderr);
  assert.equal(json.stderr, 'warning: seven.md:2: tags: 7 is a number; read as the tag "7"\n');
  const s = JSON.parse(json.stdout) as Summary & { documents: { warnings?: unknown }[] };
  assert.deepEqual(s.documents[0].warnings, [
    { line: 2, message: 'tags: 7 is a number; read as the tag "7"' },
  ]);
  const got = await runJson<{ title: string; content: string }>(
    ["get", "/ingest/notes/plan.md", "--json"],
    { dataDir: dir.path },
  );
  assert.deepEqual([got.title, got.content], ["Plan", broken]);
});
