import assert from "node:assert/strict";
import { EngramError } from "../../../src/core/errors.ts";
import type { SessionRecord, StoredMessage } from "../../../src/core/types.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { openStore } from "./_store.ts";

type NewMessage = Omit<StoredMessage, "seq" | "session_id">;

function session(brainId: string, id = "ses_1"): SessionRecord {
  return {
    id,
    brain_id: brainId,
    client_id: "claude",
    actor_id: null,
    started_at: "2025-01-01T00:00:00.000Z",
    ended_at: null,
    metadata: { extracted_seq: 0, nested: { a: [1, 2] } },
  };
}

let counter = 0;
function msg(content: string, extra: Partial<NewMessage> = {}): NewMessage {
  return {
    id: `msg_${++counter}`,
    role: "user",
    content,
    created_at: new Date().toISOString(),
    metadata: {},
    ...extra,
  };
}

function isCode(code: string, pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof EngramError, `expected EngramError, got ${err}`);
    assert.equal(err.code, code);
    assert.match(err.message, pattern);
    return true;
  };
}

Deno.test("sessions: created, read back and patched; unknown ids are null or not_found", async () => {
  await using s = await openStore();
  const created = await s.storage.sessions.createSession(session(s.brain.id));
  assert.deepEqual(created, session(s.brain.id));
  assert.deepEqual(await s.storage.sessions.getSession("ses_1"), session(s.brain.id));
  assert.equal(await s.storage.sessions.getSession("ses_nope"), null);

  const ended = await s.storage.sessions.updateSession("ses_1", {
    ended_at: "2025-01-02T00:00:00.000Z",
  });
  assert.equal(ended.ended_at, "2025-01-02T00:00:00.000Z");
  assert.deepEqual(ended.metadata, session(s.brain.id).metadata, "metadata left alone");

  const patched = await s.storage.sessions.updateSession("ses_1", {
    metadata: { reflection: "done" },
  });
  assert.deepEqual(patched.metadata, { reflection: "done" }, "metadata replaced, not merged");
  assert.equal(patched.ended_at, "2025-01-02T00:00:00.000Z", "ended_at left alone");
  assert.deepEqual(await s.storage.sessions.getSession("ses_1"), patched);

  await assert.rejects(
    () => s.storage.sessions.updateSession("ses_nope", { ended_at: "2025-01-02T00:00:00.000Z" }),
    isCode("not_found", /session "ses_nope" not found/),
  );
});

Deno.test("sessions: a taken id is a conflict naming the session, and the first one stays", async () => {
  await using s = await openStore();
  await s.storage.sessions.createSession(session(s.brain.id));
  await assert.rejects(
    () => s.storage.sessions.createSession({ ...session(s.brain.id), client_id: "other" }),
    isCode("conflict", /session "ses_1" already exists/),
  );
  assert.equal((await s.storage.sessions.getSession("ses_1"))!.client_id, "claude");
});

Deno.test("messages: seq is the table's rowid, shared across sessions", async () => {
  await using s = await openStore();
  await s.storage.sessions.createSession(session(s.brain.id, "ses_a"));
  await s.storage.sessions.createSession(session(s.brain.id, "ses_b"));
  const [first] = await s.storage.sessions.appendMessages("ses_a", [msg("hello")]);
  // Another session's message in between takes the next rowid.
  await s.storage.sessions.appendMessages("ses_b", [msg("elsewhere")]);
  const [second] = await s.storage.sessions.appendMessages("ses_a", [msg("result")]);
  assert.equal(second.seq - first.seq, 2, "seq is the table's rowid, shared across sessions");
});

Deno.test("messages: afterSeq and last select a window, always in ascending order", async () => {
  await using s = await openStore();
  await s.storage.sessions.createSession(session(s.brain.id));
  const stored = await s.storage.sessions.appendMessages(
    "ses_1",
    ["m1", "m2", "m3", "m4", "m5"].map((c) => msg(c)),
  );
  const contents = (ms: StoredMessage[]) => ms.map((m) => m.content);
  assert.deepEqual(
    contents(await s.storage.sessions.listMessages("ses_1", { afterSeq: stored[2].seq })),
    [
      "m4",
      "m5",
    ],
  );
  assert.deepEqual(contents(await s.storage.sessions.listMessages("ses_1", { last: 2 })), [
    "m4",
    "m5",
  ]);
  assert.deepEqual(contents(await s.storage.sessions.listMessages("ses_1", { last: 10 })), [
    "m1",
    "m2",
    "m3",
    "m4",
    "m5",
  ]);
  assert.deepEqual(
    contents(await s.storage.sessions.listMessages("ses_1", { afterSeq: stored[0].seq, last: 2 })),
    ["m4", "m5"],
  );
  assert.deepEqual(
    contents(await s.storage.sessions.listMessages("ses_1", { afterSeq: stored[2].seq, last: 5 })),
    ["m4", "m5"],
  );
  assert.deepEqual(await s.storage.sessions.listMessages("ses_1", { last: 0 }), []);
  assert.deepEqual(await s.storage.sessions.listMessages("ses_1", { afterSeq: stored[4].seq }), []);
});

Deno.test("messages: an append failing midway writes none of its messages", async () => {
  await using s = await openStore();
  await s.storage.sessions.createSession(session(s.brain.id));
  await s.storage.sessions.appendMessages("ses_1", [msg("kept")]);
  // The role CHECK constraint fails at the second insert, after the first went in.
  const bad = msg("bad", { role: "robot" as NewMessage["role"] });
  await assert.rejects(
    () => s.storage.sessions.appendMessages("ses_1", [msg("lost"), bad]),
    isCode("internal", /CHECK constraint/),
  );
  assert.deepEqual((await s.storage.sessions.listMessages("ses_1")).map((m) => m.content), [
    "kept",
  ]);
});

Deno.test("messages: an unknown session is not_found, a reused message id a conflict", async () => {
  await using s = await openStore();
  await assert.rejects(
    () => s.storage.sessions.appendMessages("ses_nope", [msg("x")]),
    isCode("not_found", /session "ses_nope" not found/),
  );
  await s.storage.sessions.createSession(session(s.brain.id));
  const [m] = await s.storage.sessions.appendMessages("ses_1", [msg("x")]);
  await assert.rejects(
    () => s.storage.sessions.appendMessages("ses_1", [msg("y"), msg("z", { id: m.id })]),
    isCode("conflict", new RegExp(`message "${m.id}" already exists`)),
  );
  const twice = msg("twice");
  await assert.rejects(
    () => s.storage.sessions.appendMessages("ses_1", [twice, twice]),
    isCode("conflict", /already exists/),
  );
  assert.equal(await s.storage.sessions.messageCount("ses_1"), 1);
});

Deno.test("sessions: readable from a second connection on the same file", async () => {
  await using s = await openStore();
  await s.storage.sessions.createSession(session(s.brain.id));
  await s.storage.sessions.appendMessages("ses_1", [msg("shared")]);
  const other = openSqliteStorage(s.file);
  try {
    assert.deepEqual(await other.sessions.getSession("ses_1"), session(s.brain.id));
    assert.deepEqual(
      await other.sessions.listMessages("ses_1"),
      await s.storage.sessions.listMessages("ses_1"),
    );
  } finally {
    other.close();
  }
});
