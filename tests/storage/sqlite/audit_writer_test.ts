/**
 * @module The audit writer against a real SQLite file: a held lock keeps rows queued until it is
 * free; any other failure drops the rows at once, logs them and counts them in `audit_drops`.
 * Flushes are driven by hand through the writer's timers, so no test waits on the clock.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { Logger } from "../../../src/core/logger.ts";
import { openDatabase } from "../../../src/storage/sqlite/database.ts";
import { auditDrops } from "../../../src/storage/sqlite/audit_drops.ts";
import {
  type AuditTimers,
  AuditWriter,
  QUEUE_OVERFLOW,
} from "../../../src/storage/sqlite/audit_writer.ts";
import { tempDir } from "../../helpers.ts";
import { auditEntry } from "../contracts/backend.ts";

const EPOCH = "1970-01-01T00:00:00.000Z";

/** Timers that only fire when the test says so. */
class ManualTimers implements AuditTimers {
  #next = 1;
  #pending = new Map<number, { fn: () => void; ms: number }>();

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#pending.set(id, { fn, ms });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  /** Delays of the timers still waiting. */
  get delays(): number[] {
    return [...this.#pending.values()].map((t) => t.ms);
  }

  /** Fires every waiting timer once (timers they set wait for the next call). */
  fire(): void {
    const due = [...this.#pending.entries()];
    assert.ok(due.length > 0, "a flush should have been scheduled");
    for (const [id, t] of due) {
      this.#pending.delete(id);
      t.fn();
    }
  }
}

/** A logger keeping its error lines. */
function recordingLogger(): Logger & { errors: { message: string; fields?: object }[] } {
  const errors: { message: string; fields?: object }[] = [];
  return {
    errors,
    debug() {},
    info() {},
    warn() {},
    error: (message, fields) => void errors.push({ message, fields }),
  };
}

/** The writer on a fresh database, a second connection (another process, to SQLite), and timers. */
async function setUp() {
  const dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  const db = openDatabase(file);
  const other = new DatabaseSync(file, { timeout: 0 });
  const timers = new ManualTimers();
  const logger = recordingLogger();
  const writer = new AuditWriter(db, db, { logger, timers });
  const count = (table: string) =>
    (other.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  return {
    db,
    other,
    timers,
    logger,
    writer,
    count,
    async [Symbol.asyncDispose]() {
      other.close();
      db.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("audit writer: a held write lock keeps rows queued, and they are written once it is free", async () => {
  await using t = await setUp();
  t.other.exec("BEGIN IMMEDIATE");
  t.writer.add(auditEntry("memory_search"));
  t.writer.add(auditEntry("memory_search"));
  t.timers.fire();
  assert.equal(t.count("audit"), 0);
  assert.deepEqual(t.timers.delays, [200], "tried again shortly");
  assert.deepEqual(t.logger.errors, [], "a busy lock is not a failure");
  t.timers.fire();
  assert.equal(t.count("audit"), 0, "still locked: still queued");
  t.other.exec("COMMIT");
  t.timers.fire();
  assert.equal(t.count("audit"), 2);
  assert.deepEqual(t.timers.delays, [], "nothing left to retry");
  assert.equal(t.count("audit_drops"), 0);
  assert.deepEqual(t.logger.errors, []);
});

Deno.test("audit writer: a write refused for another reason drops the rows at once, logs and counts them", async () => {
  await using t = await setUp();
  t.other.exec(
    "CREATE TRIGGER audit_refuse BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'audit refused by test'); END",
  );
  for (let i = 0; i < 3; i++) t.writer.add(auditEntry("memory_search"));
  t.timers.fire();
  assert.deepEqual(t.timers.delays, [], "not retried");
  assert.equal(t.count("audit"), 0);
  assert.equal(t.logger.errors.length, 1, JSON.stringify(t.logger.errors));
  const [logged] = t.logger.errors;
  assert.match(logged.message, /^3 audit row\(s\) dropped \(audit refused by test\)/);
  assert.deepEqual(logged.fields, { rows: 3, reason: "audit refused by test" });
  assert.deepEqual(auditDrops(t.other, EPOCH), {
    rows: 3,
    reasons: { "audit refused by test": 3 },
  });
  // Rows added later are not held back by the ones dropped before.
  t.other.exec("DROP TRIGGER audit_refuse");
  t.writer.add(auditEntry("memory_search"));
  t.timers.fire();
  assert.equal(t.count("audit"), 1);
  assert.equal(auditDrops(t.other, EPOCH).rows, 3);
});

Deno.test("audit writer: one row refused in a batch is dropped alone; the rest are written", async () => {
  await using t = await setUp();
  t.other.exec(
    "CREATE TRIGGER audit_refuse BEFORE INSERT ON audit WHEN new.name = 'bad' BEGIN SELECT RAISE(ABORT, 'bad row'); END",
  );
  t.writer.add(auditEntry("memory_search"));
  t.writer.add(auditEntry("bad"));
  t.writer.add(auditEntry("memory_search"));
  t.timers.fire();
  assert.equal(t.count("audit"), 2);
  assert.deepEqual(auditDrops(t.other, EPOCH), { rows: 1, reasons: { "bad row": 1 } });
  assert.equal(t.logger.errors.length, 1);
});

Deno.test("audit writer: a missing audit table drops the batch with SQLite's reason", async () => {
  await using t = await setUp();
  t.other.exec("DROP TABLE audit");
  t.writer.add(auditEntry("memory_search"));
  t.writer.add(auditEntry("memory_search"));
  t.timers.fire();
  assert.deepEqual(t.timers.delays, []);
  const drops = auditDrops(t.other, EPOCH);
  assert.equal(drops.rows, 2);
  assert.match(Object.keys(drops.reasons)[0], /no such table: audit/);
});

Deno.test("audit writer: rows pushed out of a full queue while locked are counted once the lock is free", async () => {
  await using t = await setUp();
  t.other.exec("BEGIN IMMEDIATE");
  for (let i = 0; i < 10_005; i++) t.writer.add(auditEntry("memory_search"));
  t.timers.fire();
  assert.equal(t.logger.errors.length, 1, "one line per overflow, not one per row");
  assert.match(t.logger.errors[0].message, /queue overflow/);
  t.other.exec("COMMIT");
  t.timers.fire();
  assert.equal(t.count("audit"), 10_000);
  assert.deepEqual(auditDrops(t.other, EPOCH), { rows: 5, reasons: { [QUEUE_OVERFLOW]: 5 } });
  assert.deepEqual(t.timers.delays, []);
});
