/**
 * @module Checking a live database's soundness (docs/operations.md#corrupt-or-full-database):
 * `quick_check` a table at a time for a server that just started, and for `engram doctor` the full
 * `integrity_check` and each FTS5 index's own integrity check against the chunks it indexes.
 */
import type { StorageCheck } from "../../../core/ports/storage.ts";
import type { SqliteConnection } from "../sqlite_connection.ts";

/** Lines of a failed check kept: the first few say what kind of damage it is. */
const MAX_PROBLEMS = 5;

/**
 * `PRAGMA quick_check` of each table (and its indexes) in turn, yielding to other work between
 * tables: node:sqlite is synchronous, and a server must go on answering while it checks. Stops
 * (returning nothing) once `signal` is aborted: a server shutting down does not wait for it.
 */
export async function quickCheck(
  conn: SqliteConnection,
  options: { signal?: AbortSignal } = {},
): Promise<StorageCheck[]> {
  const problems: string[] = [];
  try {
    const tables = await conn.read(() =>
      (conn.prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0 ORDER BY name",
      ).all() as { name: string }[]).map((r) => r.name)
    );
    for (const table of tables) {
      await yieldToOthers();
      if (options.signal?.aborted) return [];
      const rows = await conn.read(() =>
        conn.prepare(`PRAGMA quick_check(${quoteName(table)})`).all() as {
          quick_check: string;
        }[]
      );
      problems.push(...rows.map((r) => r.quick_check).filter((line) => line !== "ok"));
      if (problems.length >= MAX_PROBLEMS) break;
    }
  } catch (err) {
    return [failed("quick_check", err)];
  }
  return [finish(conn, "quick_check", problems)];
}

/** The full `PRAGMA integrity_check`, then the integrity check of every FTS5 table. */
export async function fullCheck(conn: SqliteConnection): Promise<StorageCheck[]> {
  const checks: StorageCheck[] = [];
  let ftsTables: string[] = [];
  try {
    const rows = await conn.read(() =>
      conn.prepare(`PRAGMA integrity_check(${MAX_PROBLEMS})`).all() as {
        integrity_check: string;
      }[]
    );
    const lines = rows.map((r) => r.integrity_check).filter((line) => line !== "ok");
    checks.push(finish(conn, "integrity_check", lines));
    ftsTables = await conn.read(() =>
      (conn.prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5 %' ORDER BY name",
      ).all() as { name: string }[]).map((r) => r.name)
    );
  } catch (err) {
    checks.push(failed("integrity_check", err));
  }
  for (const table of ftsTables) {
    const name = quoteName(table);
    try {
      // An INSERT that writes nothing: FTS5 checks its index, and with rank 1 compares it with
      // the chunks it indexes (external content), failing with SQLITE_CORRUPT_VTAB on a mismatch.
      await conn.write(() =>
        conn.prepare(`INSERT INTO ${name}(${name}, rank) VALUES ('integrity-check', 1)`).run()
      );
      checks.push(finish(conn, `fts:${table}`, []));
    } catch (err) {
      checks.push(failed(`fts:${table}`, err));
    }
  }
  return checks;
}

/** A check's result; damage it found marks the connection corrupt. */
function finish(conn: SqliteConnection, name: string, problems: string[]): StorageCheck {
  // SQLite reports several lines in one row, under a `*** in database main ***` heading.
  const kept = problems.flatMap((p) => p.split("\n"))
    .filter((line) => line.trim() !== "" && !/^\*\*\* in database/.test(line))
    .slice(0, MAX_PROBLEMS);
  if (kept.length > 0) conn.noteCorruption(`${name}: ${kept[0]}`);
  return { name, status: kept.length === 0 ? "ok" : "damaged", problems: kept };
}

/**
 * A check that failed to run: damage (SQLite said corrupt, which `conn` already noted), or another
 * failure (a lock held too long), which says nothing about the file and marks nothing.
 */
function failed(name: string, err: unknown): StorageCheck {
  const { code, cause } = err as { code?: unknown; cause?: unknown };
  if (code === "storage_corrupt") {
    return { name, status: "damaged", problems: [messageOf(cause ?? err)] };
  }
  return { name, status: "not_run", problems: [messageOf(err)] };
}

/** An SQL identifier, quoted. */
function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Lets timers and I/O that are waiting run before the next table. */
function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
