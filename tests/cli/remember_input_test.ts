/**
 * @module Subprocess tests of what `engram remember` reads: binary refused alike from a file and
 * from stdin, and a note's front matter kept as `engram ingest` keeps it (issue 11 §4).
 */
import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { assertFails, runJson, writeText } from "./_util.ts";

interface DocumentRecord {
  title: string;
  path: string;
  metadata: Record<string, unknown>;
  document_id?: string;
}

/** Random bytes that are not UTF-8 text: invalid sequences, and NUL bytes unless `nul` is false. */
function binary(options: { nul: boolean }): Uint8Array {
  const bytes = crypto.getRandomValues(new Uint8Array(4096));
  if (!options.nul) { for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0) bytes[i] = 0x20; }
  bytes.set(options.nul ? [0x23, 0x20, 0x00, 0xff, 0xfe] : [0x23, 0x20, 0xc3, 0x28, 0xff], 0);
  return bytes;
}

for (const nul of [true, false]) {
  Deno.test(`remember refuses binary stdin as it refuses the same bytes in a file (${nul ? "NUL bytes" : "invalid UTF-8"})`, async () => {
    await using dir = await tempDir();
    const bytes = binary({ nul });
    await Deno.writeFile(`${dir.path}/blob.md`, bytes);
    const fromFile = await runEngram(["remember", "blob.md"], { dataDir: dir.path });
    const fromStdin = await runEngram(["remember", "-"], { dataDir: dir.path, stdin: bytes });
    const why = nul
      ? "looks binary (it contains NUL bytes), not text"
      : "is not valid UTF-8 text; convert it to UTF-8 first";
    assertFails(fromFile, 2, `engram: blob.md ${why}\n`);
    assertFails(fromStdin, 2, `engram: stdin ${why}\n`);
    assert.equal(fromStdin.stderr.replace("stdin", "blob.md"), fromFile.stderr);
    const list = await runEngram(["search", "anything", "--json"], { dataDir: dir.path });
    assert.doesNotMatch(list.stdout, /blob|stdin/, "nothing was stored");
  });
}

const NOTE = `---
title: Running plan
tags: [sport, health]
rating: 5
owner: ana
---
# Intervals

Tuesday intervals, Sunday long run.
`;

Deno.test("remember note.md keeps the front matter's title, tags and keys, as ingest does; the body is the content", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "note.md", NOTE);
  const doc = await runJson<DocumentRecord & { id: string }>(
    ["remember", "note.md", "--json"],
    { dataDir: dir.path },
  );
  assert.equal(doc.title, "Running plan");
  assert.equal(doc.path, "/memory/global/running-plan.md");
  assert.deepEqual(doc.metadata, { rating: 5, owner: "ana", tags: "sport,health" });
  const got = await runJson<{ content: string }>(["search", "intervals", "--json"], {
    dataDir: dir.path,
  });
  assert.ok(JSON.stringify(got).includes("Running plan"));

  // engram ingest reads the same note the same way (plus its source_* bookkeeping).
  const ingested = await runJson<{ documents: { document_id: string }[] }>(
    ["ingest", "note.md", "--json"],
    { dataDir: dir.path },
  );
  assert.equal(ingested.documents.length, 1);
  const exported = await runEngram(["export", "out"], { dataDir: dir.path });
  assert.equal(exported.code, 0, exported.stderr);
  const remembered = await Deno.readTextFile(`${dir.path}/out/memory/global/running-plan.md`);
  const viaIngest = await Deno.readTextFile(`${dir.path}/out/ingest/note.md`);
  const body = "\n# Intervals\n\nTuesday intervals, Sunday long run.\n";
  assert.ok(remembered.endsWith(`---\n${body}`), remembered);
  assert.ok(viaIngest.endsWith(`---\n${body}`), viaIngest);
  for (
    const line of ["title: Running plan", "  - sport", "  - health", "rating: 5", "owner: ana"]
  ) {
    assert.ok(remembered.includes(`\n${line}\n`), `${line} in ${remembered}`);
    assert.ok(viaIngest.includes(`\n${line}\n`), `${line} in ${viaIngest}`);
  }
});

Deno.test("remember: --title wins over the front matter's title; --tag adds to its tags", async () => {
  await using dir = await tempDir();
  const doc = await runJson<DocumentRecord>(
    ["remember", "-", "--title", "My plan", "--tag", "health", "--tag", "running", "--json"],
    { dataDir: dir.path, stdin: NOTE },
  );
  assert.equal(doc.title, "My plan");
  assert.equal(doc.path, "/memory/global/my-plan.md");
  assert.deepEqual(doc.metadata, { rating: 5, owner: "ana", tags: "sport,health,running" });
});

Deno.test("remember of an empty file says it is empty; of a huge one points to engram ingest", async () => {
  await using dir = await tempDir();
  const empty = await runEngram(["remember", "/dev/null"], { dataDir: dir.path });
  assertFails(empty, 2, "/dev/null is empty: there is nothing to remember");
  await Deno.writeTextFile(`${dir.path}/big.md`, "# Big\n\n" + "word ".repeat(1_000_001));
  const big = await runEngram(["remember", "big.md"], { dataDir: dir.path });
  assertFails(
    big,
    1,
    "remember takes at most 5,000,000 — for a larger file use: engram ingest big.md",
  );
});

const BROKEN = "---\ntitle: Plan\ntags: [a, b\n---\nbody\n";

Deno.test("remember of a note whose front matter does not parse stores it whole, keeps its title line and warns on stderr (exit 0)", async () => {
  await using dir = await tempDir();
  await writeText(dir.path, "plan.md", BROKEN);
  const r = await runEngram(["remember", "plan.md"], { dataDir: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^remembered \/memory\/global\/plan\.md \(id doc_/);
  assert.equal(
    r.stderr,
    "warning: plan.md:3: front matter does not parse (line 3: unclosed flow sequence: a [ without its ]); stored it as part of the text, and read the title from line 2\n",
  );
  const json = await runEngram(["remember", "-", "--json"], { dataDir: dir.path, stdin: BROKEN });
  assert.equal(json.code, 0, json.stderr);
  assert.match(json.stderr, /^warning: stdin:3: front matter does not parse/);
  const doc = JSON.parse(json.stdout) as DocumentRecord & {
    warnings: { line: number; message: string }[];
  };
  assert.equal(doc.title, "Plan", "not the first body line");
  assert.deepEqual(doc.warnings.map((w) => w.line), [3]);
  const got = await runJson<{ content: string }>(["get", doc.path, "--json"], {
    dataDir: dir.path,
  });
  assert.equal(got.content, BROKEN, "the front matter is kept as text");
});

Deno.test("remember: tags: 7 becomes the tag 7 and a map of tags none, each with a warning", async () => {
  await using dir = await tempDir();
  const seven = await runEngram(["remember", "-", "--json"], {
    dataDir: dir.path,
    stdin: "---\ntitle: Seven\ntags: 7\n---\nLucky.\n",
  });
  assert.equal(seven.code, 0, seven.stderr);
  assert.equal(seven.stderr, 'warning: stdin:3: tags: 7 is a number; read as the tag "7"\n');
  const doc = JSON.parse(seven.stdout) as DocumentRecord;
  assert.equal(doc.metadata.tags, "7");
  const map = await runEngram(["remember", "-", "--json"], {
    dataDir: dir.path,
    stdin: "---\ntitle: Map\ntags:\n  work: true\n---\nMapped.\n",
  });
  assert.equal(map.code, 0, map.stderr);
  assert.equal(
    map.stderr,
    "warning: stdin:3: tags is a map, not a list of tags; read no tags from it — write tags: [a, b]\n",
  );
  assert.equal((JSON.parse(map.stdout) as DocumentRecord).metadata.tags, undefined);
});
