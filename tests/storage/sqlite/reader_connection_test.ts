/**
 * @module SQLite answers other callers' reads while a unit of work is open: from a read-only
 * connection, as of the last commit (sqlite_connection.ts); and a long document is indexed in
 * slices, so that a search made while a large file is written is answered before the write ends,
 * and sees none of it.
 */
import assert from "node:assert/strict";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { ADMIN, openService, tempDir } from "../../helpers.ts";
import { filler, find, paths } from "./_store.ts";
import { gate, yieldTurns } from "../contracts/backend.ts";

/** Whether `p` has settled, checked without waiting. */
function tracked<T>(p: Promise<T>): { promise: Promise<T>; done: () => boolean } {
  let settled = false;
  const promise = p.finally(() => (settled = true));
  return { promise, done: () => settled };
}

Deno.test("sqlite: a read outside an open unit of work is answered at once, as last committed", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "# Kept\n\nkestrel", path: "/kept.md" });
  const held = gate();
  const written = gate();
  const unit = tracked(s.storage.units.withTransaction(async () => {
    await s.service.remember(ADMIN, { content: "# New\n\nkestrel again", path: "/new.md" });
    written.open();
    await held.promise;
  }));
  await written.promise;
  const hits = await find(s.service, "kestrel");
  assert.equal(unit.done(), false, "the read was answered while the unit was still open");
  assert.deepEqual(paths(hits), ["/kept.md"], "and saw only what was committed");
  held.open();
  await unit.promise;
  assert.deepEqual(paths(await find(s.service, "kestrel")).sort(), ["/kept.md", "/new.md"]);
});

Deno.test("sqlite: an in-memory database's reads wait for the open unit instead", async () => {
  const storage = openSqliteStorage(":memory:");
  const held = gate();
  const opened = gate();
  const unit = tracked(storage.units.withTransaction(async () => {
    opened.open();
    await held.promise;
  }));
  await opened.promise;
  const read = tracked(storage.brains.listBrains());
  await yieldTurns();
  assert.equal(read.done(), false, "no second connection to an in-memory database");
  held.open();
  await unit.promise;
  await read.promise;
  storage.close();
});

Deno.test("sqlite: a search made while a long document is written is answered first, without it", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: "# Short\n\nosprey", path: "/short.md" });
  // 520 windows of 300 words (250 new each): more than one slice of 500 chunks.
  const long = `# Long\n\nosprey ${filler(520 * 250, "w")}`;
  const write = tracked(s.service.remember(ADMIN, { content: long, path: "/long.md" }));
  await new Promise((resolve) => setTimeout(resolve, 0));
  const hits = await find(s.service, "osprey");
  assert.equal(write.done(), false, "the search waited for the whole document");
  assert.deepEqual(paths(hits), ["/short.md"], "the search saw part of the document");
  await write.promise;
  const chunks = s.storage.connection.db.prepare("SELECT count(*) AS n FROM chunks").get() as {
    n: number;
  };
  assert.ok(chunks.n > 501, `${chunks.n} chunks`);
  assert.deepEqual(paths(await find(s.service, "osprey")).sort(), ["/long.md", "/short.md"]);
});
