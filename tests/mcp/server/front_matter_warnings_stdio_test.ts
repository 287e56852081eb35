/**
 * @module Over a real `engram stdio` session: a note whose front matter does not parse is stored,
 * and memory_remember, memory_update and memory_ingest_file say so in `warnings` and in their text
 * (issue 26, "Silent is wrong" 2); a clean note's result has no `warnings` key.
 */
import assert from "node:assert/strict";
import { call, connectStdio, tempDir } from "../../helpers.ts";

interface Written {
  id: string;
  title: string;
  path: string;
  version: number;
  metadata: Record<string, unknown>;
  warnings?: { line: number; message: string }[];
}

const BROKEN = "---\ntitle: Plan\ntags: [a, b\n---\nbody\n";
const WARNING = {
  line: 3,
  message:
    "front matter does not parse (line 3: unclosed flow sequence: a [ without its ]); stored it as part of the text",
};

function textOf(r: Awaited<ReturnType<typeof call>>): string {
  return (r.content as { type: string; text: string }[]).map((c) => c.text).join("\n");
}

Deno.test("stdio: memory_remember, memory_update and memory_ingest_file warn about front matter that does not parse", async () => {
  await using dir = await tempDir();
  const base = await Deno.realPath(dir.path);
  await Deno.mkdir(`${base}/notes`);
  const config = `${base}/engram.yaml`;
  await Deno.writeTextFile(
    config,
    `mcp:\n  allowed_file_roots: [${JSON.stringify(`${base}/notes`)}]\n`,
  );
  await using s = await connectStdio(base, { args: ["--tier", "write", "--config", config] });

  const remembered = await call(s.client, "memory_remember", { content: BROKEN });
  assert.equal(remembered.isError, undefined, textOf(remembered));
  const doc = remembered.structuredContent as unknown as Written;
  assert.deepEqual(doc.warnings, [WARNING]);
  assert.equal(doc.title, "body", "memory_remember reads no front matter key: first body line");
  assert.match(textOf(remembered), /\nwarning: line 3: front matter does not parse \(line 3: /);
  const got = await call(s.client, "memory_get", { id: doc.id });
  assert.equal((got.structuredContent as { content: string }).content, BROKEN, "stored whole");

  const updated = await call(s.client, "memory_update", {
    id: doc.id,
    content: "---\ntags: [x\n---\nrevised body\n",
  });
  const after = updated.structuredContent as unknown as Written;
  assert.equal(after.version, 2);
  assert.deepEqual(after.warnings, [{
    ...WARNING,
    line: 2,
    message: WARNING.message.replace("line 3", "line 2"),
  }]);

  const clean = await call(s.client, "memory_remember", { content: "# Clean\nNothing wrong." });
  assert.equal("warnings" in (clean.structuredContent ?? {}), false, "no warnings key when clean");
  const retitled = await call(s.client, "memory_update", { id: doc.id, title: "Plan" });
  assert.equal("warnings" in (retitled.structuredContent ?? {}), false, "no content, no check");

  await Deno.writeTextFile(`${base}/notes/broken.md`, BROKEN);
  const ingested = await call(s.client, "memory_ingest_file", { path: `${base}/notes/broken.md` });
  assert.equal(ingested.isError, undefined, textOf(ingested));
  const r = ingested.structuredContent as { warnings?: unknown; document_id: string };
  assert.deepEqual(r.warnings, [{
    ...WARNING,
    message: `${WARNING.message}, and read the title from line 2`,
  }]);
  assert.match(textOf(ingested), /\nwarning: line 3: front matter does not parse/);
  const stored = await call(s.client, "memory_get", { id: r.document_id });
  const storedDoc = stored.structuredContent as { title: string; content: string };
  assert.equal(storedDoc.title, "Plan", "ingest reads the title line of the broken block");
  assert.equal(storedDoc.content, BROKEN);

  await Deno.writeTextFile(`${base}/notes/seven.md`, "---\ntags: 7\n---\nLucky note\n");
  const seven = await call(s.client, "memory_ingest_file", { path: `${base}/notes/seven.md` });
  const sevenR = seven.structuredContent as { warnings?: unknown; document_id: string };
  assert.deepEqual(sevenR.warnings, [{
    line: 2,
    message: 'tags: 7 is a number; read as the tag "7"',
  }]);
  const sevenDoc = await call(s.client, "memory_get", { id: sevenR.document_id });
  assert.equal((sevenDoc.structuredContent as unknown as Written).metadata.tags, "7");
});
