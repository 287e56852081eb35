/**
 * @module The PostgreSQL connection pool as every PostgreSQL port uses it: reads, writes in a
 * transaction of their own, and the unit of work (docs/architecture.md#postgresql).
 *
 * A unit of work holds one pooled connection in one transaction from start to end; the callers
 * inside it are recognised by their async context (AsyncLocalStorage), as the SQLite backend
 * recognises its own, and every port call they make is sent on that transaction. Units of one
 * process run one at a time (as SQLite's single writer makes them), so a unit never waits for
 * another of its own process while holding a pooled connection; units of different nodes run side
 * by side, kept apart by PostgreSQL's row locks and constraints. A write outside any unit is a
 * transaction of its own; a read outside any unit runs on any pooled connection and sees what was
 * last committed.
 *
 * A statement that fails inside a transaction aborts it in PostgreSQL, so ports never let an
 * expected refusal (a slug taken, a stale version) come from a failed statement: they check first,
 * or write with `ON CONFLICT DO NOTHING`. Anything else that fails inside a unit poisons it, and
 * the unit is rolled back with cause ROLLED_BACK, as the port documents.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import postgres from "postgres";
import { EngramError } from "../../core/errors.ts";
import { type Logger, silentLogger } from "../../core/logger.ts";
import { ROLLED_BACK, type Transaction, type UnitOfWork } from "../../core/ports/unit_of_work.ts";
import { abortsTransaction, translatePgError } from "./pg_errors.ts";

/** What the pool runs statements on: the pool itself, or one open transaction. */
export type Queries = postgres.ISql;
/** An open transaction's statements. */
export type TxQueries = postgres.TransactionSql;

/** How `sslmode` is understood (libpq's names; `verify-ca` has no postgres.js equivalent). */
export type SslMode = "disable" | "allow" | "prefer" | "require" | "verify-full";

/** Where the database is and how to use it (the `storage` keys of the config). */
export interface PostgresSettings {
  /** `postgres://user:password@host:port/database?…`. */
  url: string;
  /** Connections kept at most (default 10). */
  poolSize?: number;
  /** A statement running longer is cancelled (`busy`); 0 turns the limit off (default 30 s). */
  statementTimeoutMs?: number;
  /** TLS towards the server; overrides an `sslmode` in the URL (default: the URL's, else prefer). */
  sslmode?: SslMode;
  /** Hears the server's notices (at debug level: they never reach stdout). */
  logger?: Logger;
}

/** The default pool size: enough for a node's concurrent requests, few for the server. */
export const DEFAULT_POOL_SIZE = 10;
/** The default statement timeout. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

/** Opens a pool (lazily: nothing connects until the first statement). */
export function openPool(settings: PostgresSettings): postgres.Sql {
  const logger = settings.logger ?? silentLogger;
  const timeout = settings.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const ssl = settings.sslmode === undefined
    ? {}
    : { ssl: settings.sslmode === "disable" ? false : settings.sslmode };
  return postgres(settings.url, {
    max: settings.poolSize ?? DEFAULT_POOL_SIZE,
    ...ssl,
    // Notices ("already exists, skipping") would go to stdout, which is the stdio protocol's.
    onnotice: (notice) => logger.debug("postgres notice", { message: notice.message }),
    transform: { undefined: null },
    // Counts, sums and seq columns are int8, which postgres.js hands back as strings by default;
    // none of engram's comes near 2^53.
    types: { int8: { to: 20, from: [20], serialize: String, parse: Number } },
    connection: { application_name: "engram", statement_timeout: timeout },
  });
}

/** `host:port/database` of a URL, for messages: never its password. */
export function describeServer(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get("host") || "localhost";
    return `${host}:${u.port || "5432"}${u.pathname || "/"}`;
  } catch {
    return "the PostgreSQL server in storage.url";
  }
}

/** Called inside a committing transaction with what it changed (to announce it to other nodes). */
export type CommitHook = (tx: TxQueries, topics: ReadonlySet<string>) => Promise<void>;

/** The transaction an async context runs in: a unit of work's, or one write's own. */
class OpenTx implements Transaction {
  /** What made the unit roll back, once a statement inside it failed unexpectedly. */
  poisoned: unknown = null;
  /** What the transaction changed (`documents`, `brains`, `tokens`…), for the commit hooks. */
  readonly topics = new Set<string>();
  readonly hooks: (() => void | Promise<void>)[] = [];
  /**
   * Set once the transaction ended: work its callers started in the background (a timer, say)
   * still carries it as its async context, and must run as if outside it.
   */
  ended = false;

  constructor(readonly tx: TxQueries, readonly unit: boolean) {}

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
  /** `host:port/database`, named in connection failures. */
  server?: string;
  /** The statement timeout in force, named when a statement runs out of it. */
  statementTimeoutMs?: number;
}

/** A pool with the storage's transaction rules. */
export class PostgresConnection implements UnitOfWork {
  readonly #sql: postgres.Sql;
  readonly #context = new AsyncLocalStorage<OpenTx>();
  readonly #logger: Logger;
  readonly #server?: string;
  readonly #timeoutMs?: number;
  /** The end of the last unit of work this process started: the next one starts after it. */
  #queue: Promise<void> = Promise.resolve();
  readonly #commitHooks: CommitHook[] = [];
  readonly #committed: ((topics: ReadonlySet<string>) => void)[] = [];
  #closing: Promise<void> | null = null;
  /** The clock stored times come from. */
  readonly now: () => Date;

  constructor(sql: postgres.Sql, options: ConnectionOptions = {}) {
    this.#sql = sql;
    this.now = options.now ?? (() => new Date());
    this.#logger = options.logger ?? silentLogger;
    this.#server = options.server;
    this.#timeoutMs = options.statementTimeoutMs;
  }

  /** The pool itself, for what needs a connection of its own (LISTEN) and for maintenance. */
  get pool(): postgres.Sql {
    return this.#sql;
  }

  /** The logger after-commit failures go to. */
  get logger(): Logger {
    return this.#logger;
  }

  /** `err` as an EngramError naming this pool's server. */
  translate(err: unknown): EngramError {
    return translatePgError(err, { server: this.#server, statementTimeoutMs: this.#timeoutMs });
  }

  /** Whether the caller runs inside a unit of work. */
  get inUnit(): boolean {
    return this.#current()?.unit === true;
  }

  /** The transaction the caller runs in, while it is open. */
  #current(): OpenTx | undefined {
    const open = this.#context.getStore();
    return open && !open.ended ? open : undefined;
  }

  /** Runs reads on the caller's transaction when it has one, else on any pooled connection. */
  async read<T>(fn: (sql: Queries) => Promise<T>): Promise<T> {
    const open = this.#current();
    if (open) return await this.#inOpen(open, fn);
    try {
      return await fn(this.#sql);
    } catch (err) {
      throw this.translate(err);
    }
  }

  /**
   * Runs writes: on the caller's transaction (a unit of work, or an enclosing write), else in a
   * transaction of their own, committed when `fn` resolves.
   */
  async write<T>(fn: (sql: TxQueries) => Promise<T>): Promise<T> {
    const open = this.#current();
    if (open) return await this.#inOpen(open, fn);
    let own: OpenTx | undefined;
    try {
      const out = await this.#sql.begin((tx) => {
        own = new OpenTx(tx, false);
        return this.#context.run(own, async () => {
          const value = await fn(tx);
          await this.#beforeCommit(own!);
          return value;
        });
      }).finally(() => {
        if (own) own.ended = true;
      }) as T;
      this.#afterCommitted(own!);
      await this.#runHooks(own!);
      return out;
    } catch (err) {
      throw this.translate(err);
    }
  }

  /**
   * Marks the caller's transaction as changing `topic` (`documents`, `brains`): its
   * commit hooks hear of it, and the local listeners once it committed. Call inside `write`.
   */
  touched(topic: string): void {
    this.#current()?.topics.add(topic);
  }

  /**
   * Runs `fn` once the caller's transaction has committed (never on a rollback), or at once
   * outside one: what a write announces goes out only when it is there to be seen.
   */
  afterCommit(fn: () => void | Promise<void>): void {
    const open = this.#current();
    if (open) return open.afterCommit(fn);
    void Promise.resolve().then(fn).catch((err) =>
      this.#logger.warn("work after a commit failed", { error: String(err) })
    );
  }

  /** Adds work run inside every committing transaction that touched something (NOTIFY). */
  onCommit(hook: CommitHook): void {
    this.#commitHooks.push(hook);
  }

  /** Adds a listener told, after each commit that touched something, what it touched. */
  onCommitted(listener: (topics: ReadonlySet<string>) => void): void {
    this.#committed.push(listener);
  }

  async withTransaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    const open = this.#current();
    if (open?.unit) return await fn(open);
    if (open) {
      throw new EngramError("internal", "a unit of work cannot start inside a single write");
    }
    const previous = this.#queue;
    let done!: () => void;
    this.#queue = new Promise((resolve) => (done = resolve));
    let ran: { out: T; unit: OpenTx };
    try {
      await previous;
      ran = await this.#runUnit(fn);
    } finally {
      done();
    }
    // After the next unit may start: a hook may open a unit of its own.
    this.#afterCommitted(ran.unit);
    await this.#runHooks(ran.unit);
    return ran.out;
  }

  /** Ends the pool, waiting up to five seconds for statements under way. Harmless twice. */
  close(): Promise<void> {
    this.#closing ??= this.#sql.end({ timeout: 5 });
    return this.#closing;
  }

  async #runUnit<T>(fn: (tx: Transaction) => Promise<T>): Promise<{ out: T; unit: OpenTx }> {
    let unit: OpenTx | undefined;
    /** Set when fn itself threw: that error comes out as it was thrown. */
    let fnFailed = false;
    let out: T;
    try {
      out = await this.#sql.begin((tx) => {
        unit = new OpenTx(tx, true);
        return this.#context.run(unit, async () => {
          let value: T;
          try {
            value = await fn(unit!);
          } catch (err) {
            fnFailed = true;
            throw err;
          }
          if (unit!.poisoned !== null) throw this.#poisonedError(unit!.poisoned);
          await this.#beforeCommit(unit!);
          return value;
        });
      }).finally(() => {
        if (unit) unit.ended = true;
      }) as T;
    } catch (err) {
      // A failure of BEGIN or COMMIT (the server, the connection) is translated.
      throw fnFailed ? err : this.translate(err);
    }
    return { out, unit: unit! };
  }

  /** Runs `fn` on an open transaction; an unexpected failure poisons a unit of work. */
  async #inOpen<T>(open: OpenTx, fn: (sql: TxQueries) => Promise<T>): Promise<T> {
    try {
      return await fn(open.tx);
    } catch (err) {
      // A refusal made from a failed statement (a key taken meanwhile) still aborted the
      // transaction: only a refusal decided before any statement failed leaves the unit usable.
      if (abortsTransaction(err)) open.poisoned ??= err;
      throw this.translate(err);
    }
  }

  async #beforeCommit(open: OpenTx): Promise<void> {
    if (open.topics.size === 0) return;
    for (const hook of this.#commitHooks) await hook(open.tx, open.topics);
  }

  #afterCommitted(open: OpenTx): void {
    if (open.topics.size === 0) return;
    for (const listener of this.#committed) {
      try {
        listener(open.topics);
      } catch (err) {
        this.#logger.warn("a commit listener failed", { error: String(err) });
      }
    }
  }

  async #runHooks(open: OpenTx): Promise<void> {
    for (const hook of open.hooks) {
      try {
        await hook();
      } catch (err) {
        this.#logger.warn("work after a commit failed", { error: String(err) });
      }
    }
  }

  /**
   * Why a unit whose statement failed midway (and whose caller went on) is rolled back: a full
   * disk or damage keeps its own code, so the caller learns what to do; anything else is internal.
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
      {
        cause: ROLLED_BACK,
        remote: "a write failed midway; the whole unit of work was rolled back",
      },
    );
  }
}
