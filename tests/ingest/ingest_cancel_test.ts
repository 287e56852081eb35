import assert from "node:assert/strict";
import { ingestFile } from "../../src/ingest/ingest_file.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";

Deno.test("ingest: a cancelled request stores nothing", async () => {
  await using dir = await tempDir();
  using svc = await openService(dir.path);
  await Deno.writeTextFile(`${dir.path}/note.md`, "# Note\n\nCancelled before it was stored.");
  const controller = new AbortController();
  controller.abort(new Error("cancelled by the client"));
  await assert.rejects(
    ingestFile(svc.service, ADMIN, {
      path: `${dir.path}/note.md`,
      roots: [dir.path],
      cwd: dir.path,
      signal: controller.signal,
    }),
    /cancelled by the client/,
  );
  assert.equal((await svc.service.stats(ADMIN, {})).documents, 0);
  const done = await ingestFile(svc.service, ADMIN, {
    path: `${dir.path}/note.md`,
    roots: [dir.path],
    cwd: dir.path,
    signal: new AbortController().signal,
  });
  assert.equal(done.status, "completed");
});
