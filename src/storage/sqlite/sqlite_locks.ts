/**
 * @module Named locks with an expiry, shared by every process on the database file. A holder
 * that dies simply stops renewing; once its lock expires another process may take it over.
 */
import type { LockStore } from "../../core/ports/lock_store.ts";
import type { LockHolder } from "../../core/types.ts";
import type { Prepares } from "./database.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";

/** Named locks over one connection; expiry follows the connection's clock. */
export class SqliteLockStore implements LockStore {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  acquireLock(name: string, holder: string, ttlMs: number): Promise<LockHolder | null> {
    return this.#conn.write(() =>
      acquireLock(this.#conn, { name, holder, ttlMs, now: this.#conn.now() })
    );
  }

  renewLock(name: string, holder: string, ttlMs: number): Promise<void> {
    return this.#conn.write(() =>
      renewLock(this.#conn, { name, holder, ttlMs, now: this.#conn.now() })
    );
  }

  releaseLock(name: string, holder: string): Promise<void> {
    return this.#conn.write(() => releaseLock(this.#conn, name, holder));
  }
}

/** One lock request at a time of the clock. */
interface LockRequest {
  name: string;
  holder: string;
  ttlMs: number;
  now: Date;
}

/**
 * Takes `name` for `ttlMs` when it is free, expired, or already ours (then extended, keeping its
 * acquired_at); returns null when taken, else the other holder. The upsert decides atomically
 * under SQLite's write lock; the caller runs it in a transaction so the holder read after a
 * refusal sees the same state.
 */
function acquireLock(db: Prepares, req: LockRequest): LockHolder | null {
  const { name, holder, ttlMs, now } = req;
  const at = now.toISOString();
  const taken = db.prepare(
    `INSERT INTO locks (name, holder, acquired_at, expires_at) VALUES ($name, $holder, $now, $expires)
     ON CONFLICT (name) DO UPDATE SET
       acquired_at = CASE WHEN locks.holder = excluded.holder AND locks.expires_at >= $now
                          THEN locks.acquired_at ELSE excluded.acquired_at END,
       holder = excluded.holder,
       expires_at = excluded.expires_at
     WHERE locks.holder = excluded.holder OR locks.expires_at < $now`,
  ).run({ name, holder, now: at, expires: new Date(now.getTime() + ttlMs).toISOString() });
  if (taken.changes > 0) return null;
  const row = db.prepare("SELECT holder, acquired_at, expires_at FROM locks WHERE name = ?").get(
    name,
  ) as LockHolder | undefined;
  // Unreachable while the caller holds the transaction; stated so a refusal always names someone.
  if (!row) return acquireLock(db, req);
  return { holder: row.holder, acquired_at: row.acquired_at, expires_at: row.expires_at };
}

/** Extends `name` by `ttlMs` from now if `holder` still holds it; a lock lost meanwhile stays lost. */
function renewLock(db: Prepares, req: LockRequest): void {
  db.prepare("UPDATE locks SET expires_at = ? WHERE name = ? AND holder = ?").run(
    new Date(req.now.getTime() + req.ttlMs).toISOString(),
    req.name,
    req.holder,
  );
}

/** Releases `name` if `holder` holds it. */
function releaseLock(db: Prepares, name: string, holder: string): void {
  db.prepare("DELETE FROM locks WHERE name = ? AND holder = ?").run(name, holder);
}
