import assert from "node:assert/strict";
import { ROLLED_BACK } from "../../../src/core/ports/unit_of_work.ts";
import { ADMIN, openService, runEngram, tempDir } from "../../helpers.ts";

/** Makes SQLite fail midway through a write (after the document row, at its chunks). */
const BOOM_TRIGGER = `CREATE TRIGGER boom BEFORE INSERT ON chunks WHEN new.body LIKE '%BOOM%'
  BEGIN SELECT RAISE(ABORT, 'boom'); END;`;

Deno.test("a write failing midway rolls back its whole batch, and nothing of it stays", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  s.storage.connection.db.exec(BOOM_TRIGGER);
  await assert.rejects(
    () =>
      s.storage.units.withTransaction(async () => {
        await s.service.remember(ADMIN, { content: "# Good\nfine", path: "/good.md" });
        await s.service.remember(ADMIN, { content: "# Bad\nBOOM", path: "/bad.md" }).catch(
          () => {},
        );
      }),
    (err: Error) => err.cause === ROLLED_BACK && /boom/.test(err.message),
  );
  const stats = await s.service.stats(ADMIN, {});
  assert.equal(stats.documents, 0, "the good write went with the batch");
  // Replayed one by one, the good document lands and the bad one fails alone, leaving no row.
  await s.service.remember(ADMIN, { content: "# Good\nfine", path: "/good.md" });
  await assert.rejects(() =>
    s.service.remember(ADMIN, { content: "# Bad\nBOOM", path: "/bad.md" })
  );
  assert.equal((await s.service.stats(ADMIN, {})).documents, 1);
  assert.equal(
    await s.storage.documents.findDocument((await s.service.brain(ADMIN)).id, { path: "/bad.md" }),
    null,
  );
});

Deno.test("engram ingest replays a rolled-back batch file by file: only the bad file fails", async () => {
  await using dir = await tempDir();
  {
    using s = await openService(dir.path);
    s.storage.connection.db.exec(BOOM_TRIGGER);
  }
  await Deno.mkdir(`${dir.path}/notes`);
  for (let i = 0; i < 5; i++) {
    await Deno.writeTextFile(`${dir.path}/notes/n${i}.md`, `# Note ${i}\nfine`);
  }
  await Deno.writeTextFile(`${dir.path}/notes/bad.md`, "# Bad\nBOOM");
  const r = await runEngram(["ingest", "notes", "--json"], { dataDir: dir.path });
  assert.equal(r.code, 1, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.ingested, 5);
  assert.deepEqual(summary.failed.map((f: { source: string }) => f.source.split("/").pop()), [
    "bad.md",
  ]);
  assert.match(summary.failed[0].error, /boom/);
});
