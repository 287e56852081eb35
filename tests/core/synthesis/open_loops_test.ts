/** @module Open loops across a document's versions: first seen, closed when checked off, answered or removed. */
import assert from "node:assert/strict";
import { openLoops } from "../../../src/core/synthesis/open_loops.ts";
import { ensureDefaultBrain } from "../../../src/core/brains.ts";
import { MemoryService } from "../../../src/core/memory_service.ts";
import { MeetingInput, OpenLoopsInput } from "../../../src/core/synthesis/synthesis_schemas.ts";
import { extractMeeting } from "../../../src/core/synthesis/meetings.ts";
import { ExtractiveEngine } from "../../../src/providers/extractive/engine.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { ADMIN, tempDir } from "../../helpers.ts";

/** A service whose clock the test moves. */
async function clocked(dir: string) {
  const storage = openSqliteStorage(`${dir}/engram.db`);
  await ensureDefaultBrain(storage.brains);
  let now = new Date("2024-05-01T09:00:00Z");
  const service = new MemoryService(storage, { now: () => now });
  return {
    service,
    at(iso: string) {
      now = new Date(iso);
    },
    now: () => now,
    [Symbol.dispose]: () => storage.close(),
  };
}

const args = (o: Record<string, unknown> = {}) => OpenLoopsInput.parse(o);
const PATH = "/memory/project/plan.md";

Deno.test("open loops: dated by the version that added them; checked-off and answered ones close", async () => {
  await using dir = await tempDir();
  using s = await clocked(dir.path);
  await s.service.remember(ADMIN, {
    path: PATH,
    content:
      "# Plan\n\n- [ ] write the runbook\n- [ ] book the room\n\nShould we shard the ledger?\n",
  });
  s.at("2024-05-08T09:00:00Z");
  await s.service.remember(ADMIN, {
    path: PATH,
    content:
      "# Plan\n\n- [ ] write the runbook\n- [x] book the room\n- [ ] Kenji: test the restore (due Friday)\n\nShould we shard the ledger?\nNo: one database is enough until 2025.\n\nI'll send the notes tomorrow.\n",
  });
  const deps = { service: s.service, now: s.now };
  const open = await openLoops(deps, ADMIN, args());
  assert.deepEqual(open.items.map((i) => [i.kind, i.text, i.first_seen.slice(0, 10), i.line]), [
    ["task", "Kenji: test the restore (due Friday)", "2024-05-08", 5],
    ["commitment", "I'll send the notes tomorrow.", "2024-05-08", 10],
    ["task", "write the runbook", "2024-05-01", 3],
  ]);
  assert.deepEqual(
    [open.items[0].owner, open.items[0].due, open.items[0].path, open.items[0].status],
    ["Kenji", "Friday", PATH, "open"],
  );
  assert.deepEqual(open.open_counts, { task: 2, question: 0, commitment: 1 });

  const all = await openLoops(deps, ADMIN, args({ include_closed: true }));
  const closed = all.items.filter((i) => i.status === "closed");
  assert.deepEqual(
    closed.map((i) => [i.text, i.closed_by, i.first_seen.slice(0, 10), i.closed_at?.slice(0, 10)]),
    [
      ["book the room", "checked", "2024-05-01", "2024-05-08"],
      ["Should we shard the ledger?", "answered", "2024-05-01", "2024-05-08"],
    ],
  );

  const recent = await openLoops(deps, ADMIN, args({ since: "2024-05-05" }));
  assert.deepEqual(recent.items.map((i) => i.text), [
    "Kenji: test the restore (due Friday)",
    "I'll send the notes tomorrow.",
  ]);
  s.at("2024-05-10T09:00:00Z");
  const week = await openLoops(deps, ADMIN, args({ since: "7d", kinds: ["task"] }));
  assert.deepEqual(week.items.map((i) => i.text), ["Kenji: test the restore (due Friday)"]);
});

Deno.test("open loops: an item removed in a later version is closed as removed", async () => {
  await using dir = await tempDir();
  using s = await clocked(dir.path);
  await s.service.remember(ADMIN, {
    path: PATH,
    content: "# Plan\n\n- [ ] drop me\n- [ ] keep me\n",
  });
  s.at("2024-05-02T09:00:00Z");
  await s.service.remember(ADMIN, { path: PATH, content: "# Plan\n\n- [ ] keep me\n" });
  const all = await openLoops({ service: s.service }, ADMIN, args({ include_closed: true }));
  assert.deepEqual(all.items.map((i) => [i.text, i.status, i.closed_by ?? ""]), [
    ["keep me", "open", ""],
    ["drop me", "closed", "removed"],
  ]);
});

Deno.test("open loops: empty brain, scopes, code blocks and limits", async () => {
  await using dir = await tempDir();
  using s = await clocked(dir.path);
  const empty = await openLoops({ service: s.service }, ADMIN, args());
  assert.deepEqual(empty.items, []);
  assert.match(empty.note!, /brain "default" holds no documents yet/);
  await s.service.remember(ADMIN, {
    path: "/memory/global/readme.md",
    content: "# Tool\n\n```md\n- [ ] not a task\n```\n\n- [ ] a task\n- [ ] another\n",
  });
  await s.service.remember(ADMIN, { path: PATH, content: "# Plan\n\nTODO: project task\n" });
  const global = await openLoops({ service: s.service }, ADMIN, args({ scope: "global" }));
  assert.deepEqual(global.items.map((i) => i.text), ["a task", "another"]);
  const one = await openLoops({ service: s.service }, ADMIN, args({ limit: 1 }));
  assert.equal(one.items.length, 1);
  assert.equal(one.truncated, true);
  assert.equal(one.open_counts.task, 3);
  assert.ok(!OpenLoopsInput.safeParse({ since: "last week" }).success);
  assert.match(
    OpenLoopsInput.safeParse({ since: "last week" }).error!.issues[0].message,
    /an age such as 24h, 7d, 2w or 30m/,
  );
});

Deno.test("open loops: a stored meeting's items are listed once, from its note, not again from its source", async () => {
  await using dir = await tempDir();
  using s = await clocked(dir.path);
  const minutes = [
    "# Sync 2024-05-14",
    "",
    "Attendees: Maria, Kenji",
    "",
    "## Action items",
    "- [ ] Kenji: write the rollback runbook (due 22 May)",
    "- [ ] Maria: book the room",
  ].join("\n");
  const stored = await extractMeeting(
    { service: s.service, model: new ExtractiveEngine() },
    ADMIN,
    MeetingInput.parse({ content: minutes, store: true }),
  );
  assert.equal(stored.stored?.path, "/memory/project/meetings/2024-05-14-sync.md", "no date twice");
  assert.equal(stored.source?.path, "/transcripts/meetings/2024-05-14-sync.md");
  const r = await openLoops({ service: s.service, now: s.now }, ADMIN, args());
  assert.deepEqual(
    r.items.map((i) => [i.path, i.text, i.owner, i.due]).sort(),
    [
      [
        "/memory/project/meetings/2024-05-14-sync.md",
        "book the room (owner: Maria)",
        "Maria",
        undefined,
      ],
      [
        "/memory/project/meetings/2024-05-14-sync.md",
        "write the rollback runbook — due 22 May (owner: Kenji)",
        "Kenji",
        "22 May",
      ],
    ],
  );
  assert.equal(r.open_counts.task, 2);
});
