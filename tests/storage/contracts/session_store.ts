/** @module The SessionStore contract: sessions, and their messages appended and read in order. */
import assert from "node:assert/strict";
import type { NewMessage } from "../../../src/core/ports/session_store.ts";
import type { StoredMessage } from "../../../src/core/types.ts";
import { type ContractBackend, message, rejectsWith, sessionOf, withBrain } from "./backend.ts";

const contents = (ms: StoredMessage[]) => ms.map((m) => m.content);

/** Registers the SessionStore cases for `backend`. */
export function sessionStoreContract(backend: ContractBackend): void {
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test(`${backend.name} SessionStore: ${name}`, fn);

  test("createSession stores a session, getSession reads it back; unknown ids are null", async () => {
    await using f = await withBrain(backend);
    const session = sessionOf(f.brain.id, "ses_1");
    assert.deepEqual(await f.storage.sessions.createSession(session), session);
    assert.deepEqual(await f.storage.sessions.getSession("ses_1"), session);
    assert.equal(await f.storage.sessions.getSession("ses_nope"), null);
  });

  test("updateSession sets ended_at and/or replaces metadata, leaving the rest", async () => {
    await using f = await withBrain(backend);
    const session = await f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_1"));
    const ended = await f.storage.sessions.updateSession("ses_1", {
      ended_at: "2030-01-02T00:00:00.000Z",
    });
    assert.deepEqual(ended, { ...session, ended_at: "2030-01-02T00:00:00.000Z" });
    const patched = await f.storage.sessions.updateSession("ses_1", {
      metadata: { reflection: "done" },
    });
    assert.deepEqual(patched.metadata, { reflection: "done" }, "replaced, not merged");
    assert.equal(patched.ended_at, "2030-01-02T00:00:00.000Z");
    assert.deepEqual(await f.storage.sessions.getSession("ses_1"), patched);
    await rejectsWith(
      f.storage.sessions.updateSession("ses_nope", { ended_at: "2030-01-02T00:00:00.000Z" }),
      "not_found",
      { message: /ses_nope/ },
    );
  });

  test("createSession refuses a taken id with conflict; the first session stays", async () => {
    await using f = await withBrain(backend);
    await f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_1"));
    await rejectsWith(
      f.storage.sessions.createSession({ ...sessionOf(f.brain.id, "ses_1"), client_id: "other" }),
      "conflict",
      { message: /ses_1/ },
    );
    assert.equal((await f.storage.sessions.getSession("ses_1"))?.client_id, "claude");
  });

  test("concurrent creations of one session id: exactly one succeeds", async () => {
    await using f = await withBrain(backend);
    const results = await Promise.allSettled(
      ["a", "b", "c"].map((client) =>
        f.storage.sessions.createSession({
          ...sessionOf(f.brain.id, "ses_race"),
          client_id: client,
        })
      ),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    assert.equal(won.length, 1);
    for (const r of results) {
      if (r.status === "rejected") await rejectsWith(Promise.reject(r.reason), "conflict");
    }
    assert.deepEqual(await f.storage.sessions.getSession("ses_race"), won[0].value);
  });

  test("appendMessages keeps order with increasing seq and reads back exactly", async () => {
    await using f = await withBrain(backend);
    await f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_a"));
    await f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_b"));
    const first = await f.storage.sessions.appendMessages("ses_a", [
      message("hello"),
      message("hi there", { role: "assistant", metadata: { model: "x" } }),
    ]);
    await f.storage.sessions.appendMessages("ses_b", [message("elsewhere")]);
    const second = await f.storage.sessions.appendMessages("ses_a", [
      message("result", { role: "tool", name: "search" }),
    ]);
    const all = [...first, ...second];
    assert.deepEqual(contents(all), ["hello", "hi there", "result"]);
    for (const m of all) assert.equal(m.session_id, "ses_a");
    assert.ok(all[0].seq < all[1].seq && all[1].seq < all[2].seq, JSON.stringify(all));
    assert.ok(!("name" in all[0]), "no name key when none was given");
    assert.equal(all[2].name, "search");
    assert.deepEqual(all[1].metadata, { model: "x" });
    assert.deepEqual(await f.storage.sessions.listMessages("ses_a"), all);
    assert.equal(await f.storage.sessions.messageCount("ses_a"), 3);
    assert.equal(await f.storage.sessions.messageCount("ses_b"), 1);
    assert.equal(await f.storage.sessions.messageCount("ses_nope"), 0);
    assert.deepEqual(await f.storage.sessions.listMessages("ses_nope"), []);
  });

  test("listMessages with afterSeq and last selects a window, always in ascending order", async () => {
    await using f = await withBrain(backend);
    await f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_1"));
    const stored = await f.storage.sessions.appendMessages(
      "ses_1",
      ["m1", "m2", "m3", "m4", "m5"].map((c) => message(c)),
    );
    const list = async (options: { afterSeq?: number; last?: number }) =>
      contents(await f.storage.sessions.listMessages("ses_1", options));
    assert.deepEqual(await list({ afterSeq: stored[2].seq }), ["m4", "m5"]);
    assert.deepEqual(await list({ last: 2 }), ["m4", "m5"]);
    assert.deepEqual(await list({ last: 10 }), ["m1", "m2", "m3", "m4", "m5"]);
    assert.deepEqual(await list({ afterSeq: stored[0].seq, last: 2 }), ["m4", "m5"]);
    assert.deepEqual(await list({ afterSeq: stored[2].seq, last: 5 }), ["m4", "m5"]);
    assert.deepEqual(await list({ last: 0 }), []);
    assert.deepEqual(await list({ afterSeq: stored[4].seq }), []);
  });

  test("appendMessages to an unknown session is not_found; a reused message id a conflict", async () => {
    await using f = await withBrain(backend);
    await rejectsWith(
      f.storage.sessions.appendMessages("ses_nope", [message("x")]),
      "not_found",
      { message: /ses_nope/ },
    );
    await f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_1"));
    await f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_2"));
    const [m] = await f.storage.sessions.appendMessages("ses_1", [message("x")]);
    await rejectsWith(
      f.storage.sessions.appendMessages("ses_1", [message("y"), message("z", { id: m.id })]),
      "conflict",
      { message: new RegExp(m.id) },
    );
    await rejectsWith(
      f.storage.sessions.appendMessages("ses_2", [message("z", { id: m.id })]),
      "conflict",
      { message: new RegExp(m.id) },
    );
    const twice = message("twice");
    await rejectsWith(f.storage.sessions.appendMessages("ses_1", [twice, twice]), "conflict");
    assert.deepEqual(contents(await f.storage.sessions.listMessages("ses_1")), ["x"]);
    assert.equal(await f.storage.sessions.messageCount("ses_2"), 0);
  });

  test("an append that fails partway writes none of its messages", async () => {
    await using f = await withBrain(backend);
    await f.storage.sessions.createSession(sessionOf(f.brain.id, "ses_1"));
    await f.storage.sessions.appendMessages("ses_1", [message("kept")]);
    const bad = message("bad", { role: "robot" as NewMessage["role"] });
    await assert.rejects(f.storage.sessions.appendMessages("ses_1", [message("lost"), bad]));
    assert.deepEqual(contents(await f.storage.sessions.listMessages("ses_1")), ["kept"]);
    const [after] = await f.storage.sessions.appendMessages("ses_1", [message("after")]);
    assert.equal(after.content, "after", "the store takes appends again");
  });
}
