/** @module The size limits of the ways in (src/core/limits.ts), and import accepting what they stored. */
import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import { LIMITS } from "../../src/core/limits.ts";
import { MAX_FILE_BYTES } from "../../src/ingest/file_access.ts";
import { importVault } from "../../src/ingest/vault.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";

Deno.test("the limits nest: a tool call < an ingested file <= a document; import reads any document back", () => {
  assert.equal(MAX_FILE_BYTES, LIMITS.ingestFileBytes);
  assert.ok(LIMITS.rememberContentChars < LIMITS.ingestFileBytes);
  // A UTF-8 file of n bytes decodes to at most n UTF-16 characters.
  assert.ok(LIMITS.ingestFileBytes <= LIMITS.documentChars);
  // A character takes at most 3 UTF-8 bytes; the rest is room for front matter.
  assert.ok(LIMITS.importFileBytes >= 3 * LIMITS.documentChars + 16 * 1024 * 1024);
});

Deno.test("no way in stores a document over LIMITS.documentChars: file_too_large, nothing written", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const content = "a".repeat(LIMITS.documentChars + 1);
  await assert.rejects(
    s.service.ingest(ADMIN, {
      path: "/ingest/huge.md",
      content,
      metadata: {},
      sourceHash: "x",
      contentType: "text/markdown",
    }),
    (err: unknown) => {
      assert.ok(err instanceof EngramError);
      assert.equal(err.code, "file_too_large");
      assert.equal(
        err.message,
        `content is ${
          LIMITS.documentChars + 1
        } characters; a document holds at most ${LIMITS.documentChars} — split it`,
      );
      return true;
    },
  );
  assert.equal(
    await s.storage.documents.findDocument((await s.service.brain(ADMIN)).id, {
      path: "/ingest/huge.md",
    }),
    null,
  );
});

Deno.test("import lists a note larger than LIMITS.importFileBytes without reading it, and imports the rest", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const vault = `${dir.path}/vault`;
  await Deno.mkdir(vault);
  await Deno.writeTextFile(`${vault}/ok.md`, "# Fine\n\nsmall note\n");
  // A sparse file: its size is real, its blocks are never written.
  const file = await Deno.open(`${vault}/huge.md`, { create: true, write: true });
  await file.truncate(LIMITS.importFileBytes + 1);
  file.close();
  const summary = await importVault(s.service, ADMIN, { dir: vault });
  assert.equal(summary.imported, 1);
  assert.deepEqual(summary.failed, [{
    file: "huge.md",
    error: "huge.md is 256.0 MiB; import reads notes of at most 256 MiB — split it",
  }]);
});
