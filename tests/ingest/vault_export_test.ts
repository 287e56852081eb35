/** @module In-process tests of vault export (src/ingest/vault.ts): files, front matter, and the folder guards. */
import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import { readFrontMatter } from "../../src/core/markdown/front_matter.ts";
import { exportVault } from "../../src/ingest/vault.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";

Deno.test("export writes one file per live document: front matter, a blank line, the content as stored", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const doc = await s.service.remember(ADMIN, {
    content: "# Running\n\nIntervals on Tuesday.\n",
    tags: ["sport", "health"],
    metadata: { source_hash: "abc", rating: 4, done: false },
  });
  await s.service.remember(ADMIN, { content: "plain text", path: "/notes/plain" });
  const gone = await s.service.remember(ADMIN, { content: "old", path: "/old.md" });
  await s.service.forget(ADMIN, { id: gone.id });
  const out = `${dir.path}/out/nested`;
  const summary = await exportVault(s.service, ADMIN, { dir: out });
  assert.equal(summary.documents, 2);
  assert.deepEqual(summary.failed, []);
  const text = await Deno.readTextFile(`${out}/memory/global/running.md`);
  // Obsidian's Properties view: title, tags and user keys flat; engram's own keys under `engram:`.
  assert.equal(
    text,
    [
      "---",
      "title: Running",
      "tags:",
      "  - sport",
      "  - health",
      "rating: 4",
      "done: false",
      "engram:",
      `  id: ${doc.id}`,
      `  created_at: ${doc.created_at}`,
      `  updated_at: ${doc.updated_at}`,
      "  source_hash: abc",
      "---",
      "",
      "# Running",
      "",
      "Intervals on Tuesday.",
      "",
    ].join("\n"),
  );
  assert.ok(text.endsWith(`---\n\n# Running\n\nIntervals on Tuesday.\n`), text);
  const { front, body } = readFrontMatter(text);
  assert.deepEqual(front, {
    id: doc.id,
    title: "Running",
    tags: ["sport", "health"],
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    metadata: { source_hash: "abc", rating: 4, done: false },
  });
  assert.equal(body, "# Running\n\nIntervals on Tuesday.\n");
  assert.ok(text.includes("tags:\n  - sport\n  - health\n"), "tags are a YAML list");
  assert.match(await Deno.readTextFile(`${out}/notes/plain.md`), /\n\nplain text$/);
  await assert.rejects(Deno.stat(`${out}/old.md`), Deno.errors.NotFound);
});

Deno.test("export overwrites existing files and leaves other files in the folder alone", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "new text", path: "/a.md" });
  await Deno.writeTextFile(`${dir.path}/a.md`, "stale");
  await Deno.writeTextFile(`${dir.path}/keep.txt`, "mine");
  await exportVault(s.service, ADMIN, { dir: dir.path });
  assert.match(await Deno.readTextFile(`${dir.path}/a.md`), /\n\nnew text$/);
  assert.equal(await Deno.readTextFile(`${dir.path}/keep.txt`), "mine");
});

Deno.test("export lists a document whose file another document already took as failed", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "first", path: "/a.md" });
  await s.service.remember(ADMIN, { content: "second", path: "/a" });
  const summary = await exportVault(s.service, ADMIN, { dir: `${dir.path}/out` });
  assert.equal(summary.documents, 1);
  assert.equal(summary.failed.length, 1);
  assert.equal(summary.failed[0].file, "a.md");
  assert.match(summary.failed[0].error, /\/a\.md and \/a both map to a\.md/);
  assert.match(await Deno.readTextFile(`${dir.path}/out/a.md`), /\n\nfirst$/);
});

Deno.test("export refuses to write through a symbolic link that leads out of the folder", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "secret", path: "/memory/global/x.md" });
  await s.service.remember(ADMIN, { content: "fine", path: "/ok.md" });
  await Deno.mkdir(`${dir.path}/out`);
  await Deno.mkdir(`${dir.path}/outside`);
  await Deno.symlink(`${dir.path}/outside`, `${dir.path}/out/memory`);
  const summary = await exportVault(s.service, ADMIN, { dir: `${dir.path}/out` });
  assert.deepEqual(summary.failed.map((f) => f.file), ["memory/global/x.md"]);
  assert.match(summary.failed[0].error, /symbolic link/);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(`${dir.path}/outside`)), []);
  assert.equal(summary.documents, 1);
});

Deno.test("export into a path that is a file is invalid_argument", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await Deno.writeTextFile(`${dir.path}/file`, "x");
  await assert.rejects(
    exportVault(s.service, ADMIN, { dir: `${dir.path}/file` }),
    (e: unknown) => e instanceof EngramError && e.code === "invalid_argument",
  );
});
