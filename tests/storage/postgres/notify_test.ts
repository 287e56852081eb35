/**
 * @module LISTEN/NOTIFY between nodes: two storages on one database, as two `engram serve` nodes
 * would hold them. A write committed on one empties the other's search cache as soon as its notice
 * arrives, and wakes the other's change feed without waiting for a poll; a rolled-back unit
 * announces nothing; a node whose listening connection drops caches nothing until it listens again.
 */
import assert from "node:assert/strict";
import { ChangeFeed, type DocumentChange } from "../../../src/core/change_feed.ts";
import type { ChangeNotice } from "../../../src/storage/postgres/notify.ts";
import type { PostgresStorage } from "../../../src/storage/postgres/postgres_storage.ts";
import { newBrain, searchQuery, within, writeDoc, yieldTurns } from "../contracts/backend.ts";
import { startCluster } from "./_cluster.ts";
import { freshDatabase } from "./_storage.ts";

/** The next notice `storage` hears that matches `wanted`. */
function nextNotice(
  storage: PostgresStorage,
  wanted: (n: ChangeNotice) => boolean,
): Promise<ChangeNotice> {
  return new Promise((resolve) => {
    const stop = storage.changes.watch((n) => {
      if (!wanted(n)) return;
      stop();
      resolve(n);
    });
  });
}

const remoteDocuments = (n: ChangeNotice) =>
  n.origin === "remote" && n.topics.includes("documents");

const cluster = await startCluster();

if ("skip" in cluster) {
  console.log(cluster.skip);
} else {
  Deno.test("notify: a write on one node empties the other's search cache when its notice arrives", async () => {
    await using nodes = await freshDatabase(cluster);
    const a = await nodes.open();
    const b = await nodes.open();
    assert.ok(a.changes.listening && b.changes.listening, "both listen once open");
    const brain = await newBrain(a.brains, "team");
    await writeDoc(a.documents, brain.id, "/one.md", ["the heron nests by the river"]);
    const q = searchQuery(brain.id, "heron");
    const first = await b.search.search(q);
    assert.deepEqual(first.map((h) => h.path), ["/one.md"]);
    const stamp = b.changes.current();
    assert.deepEqual(await b.search.search(q), first, "served from B's cache");
    assert.equal(b.changes.current(), stamp, "nothing changed meanwhile");

    const heard = nextNotice(b, remoteDocuments);
    await writeDoc(a.documents, brain.id, "/two.md", ["another heron"]);
    await within(heard, "B hearing A's commit");
    assert.notEqual(b.changes.current(), stamp);
    assert.deepEqual((await b.search.search(q)).map((h) => h.path).sort(), ["/one.md", "/two.md"]);
  });

  Deno.test("notify: the other node's change feed reads the timeline when told, not at its poll", async () => {
    await using nodes = await freshDatabase(cluster);
    const a = await nodes.open();
    const b = await nodes.open();
    const brain = await newBrain(a.brains, "team");
    // The store B's feed reads, observed so the test knows when watching has been primed.
    let timelineReads = 0;
    let primed!: () => void;
    const ready = new Promise<void>((resolve) => (primed = resolve));
    const store = {
      timeline: async (...args: Parameters<typeof b.documents.timeline>) => {
        const entries = await b.documents.timeline(...args);
        if (++timelineReads === 1) primed();
        return entries;
      },
      watchChanges: (listener: () => void) => b.documents.watchChanges(listener),
    };
    // An hour between polls: only a notice can bring the change within the test.
    const feed = new ChangeFeed(store, { pollMs: 3_600_000 });
    const seen: DocumentChange[] = [];
    let arrived!: () => void;
    const change = new Promise<void>((resolve) => (arrived = resolve));
    feed.listen((c) => {
      seen.push(c);
      arrived();
    });
    const unwatch = feed.watch([brain.id]);
    try {
      await within(ready, "priming the watch");
      await yieldTurns();
      const doc = await writeDoc(a.documents, brain.id, "/note.md", ["written on node A"]);
      await within(change, "B's feed seeing A's write");
      assert.deepEqual(seen, [{
        brainId: brain.id,
        documentId: doc.id,
        path: "/note.md",
        version: 1,
        action: "created",
      }]);
    } finally {
      unwatch();
      feed.close();
    }
  });

  Deno.test("notify: a rolled-back unit announces nothing; a committed one announces its topics", async () => {
    await using nodes = await freshDatabase(cluster);
    const a = await nodes.open();
    const b = await nodes.open();
    const created = nextNotice(b, (n) => n.topics.includes("brains"));
    const brain = await newBrain(a.brains, "team");
    await within(created, "B hearing the brain created");
    const notices: ChangeNotice[] = [];
    const stop = b.changes.watch((n) => notices.push(n));
    await assert.rejects(
      a.units.withTransaction(async () => {
        await writeDoc(a.documents, brain.id, "/gone.md", ["never committed"]);
        throw new Error("abandon");
      }),
      /abandon/,
    );
    const heard = nextNotice(b, remoteDocuments);
    await writeDoc(a.documents, brain.id, "/kept.md", ["committed"]);
    await within(heard, "B hearing the committed write");
    stop();
    assert.deepEqual(notices, [{ topics: ["documents"], origin: "remote" }]);
  });

  Deno.test("notify: a notice engram did not send counts as a change of anything", async () => {
    await using nodes = await freshDatabase(cluster);
    const b = await nodes.open();
    const stamp = b.changes.current();
    const heard = nextNotice(b, (n) => n.origin === "remote");
    await b.connection.pool`SELECT pg_notify('engram_changes', 'not json')`;
    assert.deepEqual(await within(heard, "the foreign notice"), {
      topics: ["*"],
      origin: "remote",
    });
    assert.notEqual(b.changes.current(), stamp);
  });

  Deno.test("notify: a node whose listening connection drops listens again and counts what it missed", async () => {
    await using nodes = await freshDatabase(cluster);
    const a = await nodes.open();
    const b = await nodes.open();
    const brain = await newBrain(a.brains, "team");
    const missed = nextNotice(b, (n) => n.origin === "missed");
    const [{ n }] = await a.connection.pool<{ n: number }[]>`
      SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND query = 'LISTEN engram_changes'`;
    assert.equal(n, 2, "each node listens on a connection of its own");
    assert.deepEqual(await within(missed, "B listening again"), {
      topics: ["*"],
      origin: "missed",
    });
    assert.ok(b.changes.listening);
    // Listening again, B hears the next write.
    const heard = nextNotice(b, remoteDocuments);
    await writeDoc(a.documents, brain.id, "/after.md", ["after the drop"]);
    await within(heard, "B hearing A after listening again");
  });

  Deno.test("notify: while not listening, the stamp is new at every read, so nothing is cached", async () => {
    await using nodes = await freshDatabase(cluster);
    const b = await nodes.open();
    await b.changes.close();
    assert.equal(b.changes.listening, false);
    assert.notEqual(b.changes.current(), b.changes.current());
  });
}
