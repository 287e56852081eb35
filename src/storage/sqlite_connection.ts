/**
 * @module One node:sqlite connection as the store uses it: cached statements, write transactions,
 * batches, and error translation. SqliteStore builds its port methods on top of this.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { EngramError } from "../core/errors.ts";
import { type Prepares, transaction, translateSqliteError } from "./database.ts";

/** The `cause` of the error a rolled-back batch throws; its writes can be replayed one by one. */
export const BATCH_ROLLED_BACK = "batch-rolled-back";

/** A connection with the store's transaction and batch rules. */
export class SqliteConnection {
  #db: DatabaseSync;
  /** Prepared once per connection: preparing costs more than running most of these statements. */
  #statements = new Map<string, StatementSync>();
  /** The open batch, if any; `poisoned` says why it must be rolled back. */
  #batch: { poisoned: string | null } | null = null;
  /** The statement cache, for the query helpers that take a `Prepares`. */
  protected readonly cached: Prepares = { prepare: (sql: string) => this.prepare(sql) };

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** The underlying connection, for maintenance commands and benchmarks. */
  get db(): DatabaseSync {
    return this.#db;
  }

  /**
   * Runs `fn` with every write in one transaction: bulk imports commit once per batch instead of
   * once per document. Holds the write lock for the whole batch, so keep batches short.
   */
  async batch<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#batch) return await fn();
    this.#db.exec("BEGIN IMMEDIATE");
    this.#batch = { poisoned: null };
    try {
      const out = await fn();
      if (this.#batch.poisoned) {
        throw new EngramError(
          "internal",
          `a write failed midway (${this.#batch.poisoned}); the whole batch was rolled back`,
          { cause: BATCH_ROLLED_BACK },
        );
      }
      this.#db.exec("COMMIT");
      return out;
    } catch (err) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw err;
    } finally {
      this.#batch = null;
    }
  }

  /**
   * A write: its own transaction, or inside a batch a plain run. Savepoints per document would make
   * FTS5 flush its pending index at every one (a quarter of bulk-import time). Validation throws
   * EngramError before anything is written, so only an unexpected SQLite failure can stop a write
   * midway; that poisons the batch, which is then rolled back whole.
   */
  protected write<T>(fn: () => T): T {
    if (!this.#batch) return transaction(this.#db, fn);
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof EngramError)) this.#batch.poisoned = String(err);
      throw err;
    }
  }

  /** A cached prepared statement. */
  protected prepare(sql: string): StatementSync {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Runs synchronous SQLite work, mapping lock timeouts to `busy` and everything else to EngramError. */
  protected run<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(translateSqliteError(err));
    }
  }
}
