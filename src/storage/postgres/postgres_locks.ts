/**
 * @module Named locks with an expiry, shared by every node on the database: lease rows, not
 * PostgreSQL's advisory locks, because a lock must expire by engram's clock (so a holder that died
 * without its session ending is taken over, and tests move the clock) and outlive the statement
 * that took it.
 */
import type { LockStore } from "../../core/ports/lock_store.ts";
import type { LockHolder } from "../../core/types.ts";
import type { PostgresConnection } from "./connection.ts";

/** Named locks over one pool; expiry follows the connection's clock. */
export class PostgresLockStore implements LockStore {
  readonly #conn: PostgresConnection;

  constructor(conn: PostgresConnection) {
    this.#conn = conn;
  }

  /**
   * Takes `name` for `ttlMs` when it is free, expired, or already ours (then extended, keeping its
   * acquired_at); returns null when taken, else the other holder. The upsert decides atomically
   * (a concurrent taker waits on the row); the holder is read in the same transaction.
   */
  acquireLock(name: string, holder: string, ttlMs: number): Promise<LockHolder | null> {
    return this.#conn.write(async (sql) => {
      const now = this.#conn.now();
      const at = now.toISOString();
      const expires = new Date(now.getTime() + ttlMs).toISOString();
      const taken = await sql`
        INSERT INTO locks AS l (name, holder, acquired_at, expires_at)
        VALUES (${name}, ${holder}, ${at}, ${expires})
        ON CONFLICT (name) DO UPDATE SET
          acquired_at = CASE WHEN l.holder = excluded.holder AND l.expires_at >= ${at}
                             THEN l.acquired_at ELSE excluded.acquired_at END,
          holder = excluded.holder,
          expires_at = excluded.expires_at
        WHERE l.holder = excluded.holder OR l.expires_at < ${at}`;
      if (taken.count > 0) return null;
      const [row] = await sql<LockHolder[]>`
        SELECT holder, acquired_at, expires_at FROM locks WHERE name = ${name}`;
      return { holder: row.holder, acquired_at: row.acquired_at, expires_at: row.expires_at };
    });
  }

  renewLock(name: string, holder: string, ttlMs: number): Promise<void> {
    return this.#conn.write(async (sql) => {
      const expires = new Date(this.#conn.now().getTime() + ttlMs).toISOString();
      await sql`UPDATE locks SET expires_at = ${expires} WHERE name = ${name} AND holder = ${holder}`;
    });
  }

  releaseLock(name: string, holder: string): Promise<void> {
    return this.#conn.write(async (sql) => {
      await sql`DELETE FROM locks WHERE name = ${name} AND holder = ${holder}`;
    });
  }
}
