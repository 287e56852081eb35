/**
 * @module One node:sqlite connection as every SQLite port uses it: cached statements, reads and
 * writes with SQLite's errors translated, the unit of work, and the stamp the read caches are
 * checked against — moved in one place, when a write transaction that changed what they hold
 * commits.
 *
 * node:sqlite is synchronous and the connection is shared by every caller of this process, so a
 * unit of work, which spans awaits, would otherwise take in whatever other callers ran meanwhile.
 * The callers inside a unit are recognised by their async context (AsyncLocalStorage). Other
 * callers' writes wait until the unit ends; their reads are answered from a second, read-only
 * connection to the same file, opened the first time one is needed, which sees the database as
 * last committed (WAL): a search or a job's status is answered while a large file is indexed,
 * and never shows part of it. A PostgreSQL backend would route the same context to a pooled
 * connection of its own instead.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { EngramError } from "../../core/errors.ts";
import { type Logger, silentLogger } from "../../core/logger.ts";
import { ROLLED_BACK, type Transaction, type UnitOfWork } from "../../core/ports/unit_of_work.ts";
import { BUSY_TIMEOUT_MS, type Prepares, translateSqliteError } from "./database.ts";
import { DatabaseStamp, type ReadCache } from "./stamped_cache.ts";

/** An open unit of work. */
class OpenUnit implements Transaction {
  /** The SQLite error that makes the unit roll back, once a write inside it failed unexpectedly. */
  poisoned: unknown = null;
  readonly hooks: (() => void | Promise<void>)[] = [];
  readonly ended: Promise<void>;
  end!: () => void;

  constructor() {
    this.ended = new Promise((resolve) => (this.end = resolve));
  }

  afterCommit(fn: () => void | Promise<void>): void {
    this.hooks.push(fn);
  }
}

/** Options of a connection. */
export interface ConnectionOptions {
  /** The clock stored times come from (tests move it to expire leases and locks). */
  now?: () => Date;
  /** Hears about after-commit work that failed. */
  logger?: Logger;
  /**
   * The database file, for the read-only connection that answers reads while another caller's
   * unit of work is open; without it (an in-memory database) those reads wait for the unit.
   */
  file?: string;
}

/** A connection with the storage's transaction rules. */
export class SqliteConnection implements UnitOfWork, Prepares {
  readonly #db: DatabaseSync;
  /** Prepared once per connection: preparing costs more than running most of these statements. */
  readonly #statements = new Map<string, StatementSync>();
  readonly #context = new AsyncLocalStorage<OpenUnit>();
  readonly #logger: Logger;
  #open: OpenUnit | null = null;
  /** What the read caches were computed from; moves when an invalidating write commits. */
  readonly #stamp: DatabaseStamp;
  /** Whether the write transaction in progress changed what the read caches hold. */
  #invalidating = false;
  /** The clock stored times come from. */
  readonly now: () => Date;
  readonly #file?: string;
  /** The read-only connection and its statements, once a read needed it. */
  #reader: { db: DatabaseSync; statements: Map<string, StatementSync> } | null = null;
  /** Set while a read runs on the reader: `prepare` then hands out the reader's statements. */
  #onReader = false;
  #readerFailed = false;
  /** What SQLite said the first time it reported the file corrupt; null while it never has. */
  #corruption: string | null = null;

  constructor(db: DatabaseSync, options: ConnectionOptions = {}) {
    this.#db = db;
    this.#file = options.file;
    this.now = options.now ?? (() => new Date());
    this.#logger = options.logger ?? silentLogger;
    this.#stamp = new DatabaseStamp(() =>
      (this.prepare("PRAGMA data_version").get() as { data_version: number }).data_version
    );
  }

  /**
   * What SQLite said when it first reported the database corrupt (a failed read or write, or a
   * check that found damage); null while it never has. /readyz turns 503 from then on.
   */
  get corruption(): string | null {
    return this.#corruption;
  }

  /** Records that the database was found corrupt (`detail`: what was found). */
  noteCorruption(detail: string): void {
    this.#corruption ??= detail;
  }

  /**
   * `err` as an EngramError naming this connection's file; a corrupt file is remembered (see
   * `corruption`).
   */
  translate(err: unknown): EngramError {
    const e = translateSqliteError(err, { file: this.#file });
    if (e.code === "storage_corrupt") {
      this.noteCorruption(err instanceof Error ? err.message : String(err));
    }
    return e;
  }

  /** The underlying connection, for maintenance (backup, summaries) and the audit writer. */
  get db(): DatabaseSync {
    return this.#db;
  }

  /**
   * A cached prepared statement. The connection is itself a `Prepares`: the query functions take
   * it and share its statement cache.
   */
  prepare(sql: string): StatementSync {
    const { db, statements } = this.#onReader && this.#reader
      ? this.#reader
      : { db: this.#db, statements: this.#statements };
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * Runs synchronous reads: at once, as of the last commit when another caller's unit of work is
   * open (on the reader connection), or after that unit for an in-memory database.
   */
  read<T>(fn: () => T): Promise<T> {
    const elsewhere = this.#mustWait();
    if (elsewhere && !this.#openReader()) return this.#afterOpenUnit().then(() => this.read(fn));
    const was = this.#onReader;
    this.#onReader = was || elsewhere;
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(this.translate(err));
    } finally {
      this.#onReader = was;
    }
  }

  /**
   * Whether the reader connection is open, opening it now if need be: never for an in-memory
   * database, nor after it failed to open once (reads then wait for the unit, as they used to).
   */
  #openReader(): boolean {
    if (this.#reader) return true;
    if (this.#file === undefined || this.#file === ":memory:" || this.#readerFailed) return false;
    try {
      const db = new DatabaseSync(this.#file, { readOnly: true, timeout: BUSY_TIMEOUT_MS });
      this.#reader = { db, statements: new Map() };
      return true;
    } catch (err) {
      this.#readerFailed = true;
      this.#logger.warn("could not open a read-only connection; reads wait for writes", {
        error: String(err),
      });
      return false;
    }
  }

  /**
   * Runs synchronous writes: inside a unit of work as part of it, else in a transaction of their
   * own (`BEGIN IMMEDIATE`, so writers of other processes queue instead of failing midway).
   */
  write<T>(fn: () => T): Promise<T> {
    if (this.#mustWait()) return this.#afterOpenUnit().then(() => this.write(fn));
    const unit = this.#member();
    try {
      if (unit) return Promise.resolve(this.#inUnit(unit, fn));
      this.#db.exec("BEGIN IMMEDIATE");
      let out: T;
      try {
        out = fn();
        // A COMMIT that fails (a full disk) may leave the transaction open: roll it back too.
        this.#commit();
      } catch (err) {
        this.#rollback();
        throw err;
      }
      return Promise.resolve(out);
    } catch (err) {
      return Promise.reject(this.translate(err));
    }
  }

  async withTransaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const joined = this.#member();
    if (joined) return await fn(joined);
    while (this.#open) await this.#open.ended;
    const unit = new OpenUnit();
    try {
      this.#db.exec("BEGIN IMMEDIATE");
    } catch (err) {
      throw this.translate(err);
    }
    this.#open = unit;
    let out: T;
    try {
      out = await this.#context.run(unit, () => fn(unit));
      if (unit.poisoned !== null) throw this.#poisonedError(unit.poisoned);
      try {
        this.#commit();
      } catch (err) {
        throw this.translate(err);
      }
    } catch (err) {
      this.#rollback();
      this.#close(unit);
      throw err;
    }
    this.#close(unit);
    for (const hook of unit.hooks) {
      try {
        await hook();
      } catch (err) {
        this.#logger.warn("work after a commit failed", { error: String(err) });
      }
    }
    return out;
  }

  /**
   * Marks the write transaction in progress as changing what the read caches hold (documents and
   * their chunks, brains, token rows): its commit moves the stamp, which empties them. Writes to
   * tables no cache reads (jobs, sessions, locks, vectors, upstreams, approvals) leave the caches
   * in place. Call inside `write`.
   */
  invalidates(): void {
    this.#invalidating = true;
  }

  /**
   * `read()` answered from `cache` while the stamp is unchanged. Inside a transaction a read may
   * see writes that are later rolled back, so it is neither cached nor answered from the cache. A
   * null read is not cached. Call from inside `read`.
   */
  throughCache<K, V>(cache: ReadCache<K, V>, key: K, read: () => V | null): V | null {
    if (this.#db.isTransaction) return read();
    const stamp = this.#stamp.current();
    const hit = cache.get(key, stamp);
    if (hit !== undefined) return hit;
    const value = read();
    return value === null ? null : cache.set(key, stamp, value);
  }

  /** Closes the connection; work still waiting on a unit of work fails. */
  close(): void {
    if (this.#reader?.db.isOpen) this.#reader.db.close();
    if (this.#db.isOpen) this.#db.close();
  }

  /**
   * Why a unit whose write failed midway (and whose caller went on) is rolled back: a full disk or
   * a corrupt file keeps its own code, so the caller learns what to do; anything else is internal.
   */
  #poisonedError(raw: unknown): EngramError {
    const e = this.translate(raw);
    if (e.code === "storage_full" || e.code === "storage_corrupt") {
      return new EngramError(e.code, `${e.message} (the whole unit of work was rolled back)`, {
        cause: ROLLED_BACK,
        remote: e.remote,
      });
    }
    return new EngramError(
      "internal",
      `a write failed midway (${String(raw)}); the whole unit of work was rolled back`,
      { cause: ROLLED_BACK },
    );
  }

  /** The unit of work the caller runs in, if it is the open one. */
  #member(): OpenUnit | null {
    const unit = this.#open;
    return unit !== null && this.#context.getStore() === unit ? unit : null;
  }

  /** Whether another caller's unit of work is open. */
  #mustWait(): boolean {
    return this.#open !== null && this.#context.getStore() !== this.#open;
  }

  async #afterOpenUnit(): Promise<void> {
    while (this.#mustWait()) await this.#open!.ended;
  }

  /**
   * A write inside a unit of work runs plainly: savepoints per write would make FTS5 flush its
   * pending index at every one (a quarter of bulk-import time). Validation throws EngramError
   * before anything is written, so only an unexpected SQLite failure stops a write midway; that
   * poisons the unit, which is then rolled back whole.
   */
  #inUnit<T>(unit: OpenUnit, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof EngramError)) unit.poisoned ??= err;
      throw err;
    }
  }

  /**
   * Ends a write transaction. The one place the read caches are invalidated, when the transaction
   * marked itself as invalidating: SQLite's `data_version` moves for other connections' commits,
   * never for this one's own.
   */
  #commit(): void {
    this.#db.exec("COMMIT");
    if (this.#invalidating) this.#stamp.bump();
    this.#invalidating = false;
  }

  #rollback(): void {
    this.#invalidating = false;
    try {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
    } catch {
      // The transaction may already be gone (e.g. SQLITE_FULL); the original error matters.
    }
  }

  #close(unit: OpenUnit): void {
    if (this.#open === unit) this.#open = null;
    unit.end();
  }
}
