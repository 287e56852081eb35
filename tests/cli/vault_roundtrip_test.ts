/**
 * @module Subprocess tests of round trips through `engram export` and `engram import`: whatever
 * `engram ingest` stored comes back byte for byte, however large (issue 11 §4).
 */
import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { assertOk, runJson, writeText } from "./_util.ts";

interface ImportSummary {
  files: number;
  imported: number;
  failed: { file: string; error: string }[];
}

Deno.test("a 6 MB markdown file ingested by engram ingest survives export and import into a fresh data dir", async () => {
  await using dir = await tempDir();
  const first = `${dir.path}/first`;
  const second = `${dir.path}/second`;
  await Deno.mkdir(first);
  await Deno.mkdir(second);
  const line = "Intervals on Tuesday, a long run on Sunday, rest on Monday and Friday.\n";
  const body = `# Training log\n\n${line.repeat(Math.ceil(6_000_000 / line.length))}`;
  assert.ok(body.length > 6_000_000);
  const file = await writeText(dir.path, "log.md", `---\ntags: [sport]\n---\n${body}`);

  const ingested = await runJson<{ ingested: number; documents: { path: string }[] }>(
    ["ingest", file, "--json"],
    { dataDir: first },
  );
  assert.equal(ingested.ingested, 1);
  assertOk(await runEngram(["export", `${dir.path}/out-a`], { dataDir: first }));

  const imported = await runJson<ImportSummary>(
    ["import", `${dir.path}/out-a`, "--json"],
    { dataDir: second },
  );
  assert.deepEqual(imported.failed, []);
  assert.equal(imported.imported, 1);
  assertOk(await runEngram(["export", `${dir.path}/out-b`], { dataDir: second }));

  const exportedFile = `${ingested.documents[0].path.slice(1)}`;
  const a = await Deno.readTextFile(`${dir.path}/out-a/${exportedFile}`);
  const b = await Deno.readTextFile(`${dir.path}/out-b/${exportedFile}`);
  assert.equal(b, a, "the second export is identical to the first");
  assert.ok(a.endsWith(`---\n\n${body}`), "the content is exactly the ingested body");
});
