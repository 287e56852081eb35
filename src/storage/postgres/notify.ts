/**
 * @module Changes announced across nodes through PostgreSQL's LISTEN/NOTIFY: what SQLite learns
 * from `data_version` and the timeline poll (docs/architecture.md#postgresql-notifications).
 *
 * Every transaction that changed something a node caches or watches (`documents`, `brains`: the
 * topics the ports mark with `touched`; tokens are read on every request, never cached, so their
 * writes announce nothing) sends `pg_notify` on the channel `engram_changes` as its last
 * statement, so the notice goes out at the commit and never for a rollback. Each node LISTENs on a
 * connection of its own; a notice from another node moves the cache stamp (the search cache
 * empties) and tells the watchers (the change feed
 * reads the timeline at once instead of at its next poll). This node's own commits move the stamp
 * before the write returns, without waiting for their echo.
 *
 * A node that is not listening (before the first LISTEN, or after the connection dropped, until
 * it is back) cannot know what others commit, so its stamp is then new at every call: nothing is
 * served from a cache. When listening resumes, the stamp moves and the watchers are told that
 * anything may have changed.
 */
import postgres from "postgres";
import type { Logger } from "../../core/logger.ts";
import type { PostgresConnection } from "./connection.ts";

/** The channel every engram node of a database announces and listens on. */
export const CHANGES_CHANNEL = "engram_changes";
/** PostgreSQL's limit on a notice's payload is 8000 bytes; topics beyond this are summarised. */
const MAX_PAYLOAD = 7000;
/** The first wait before listening again after the connection dropped, and the longest. */
const RELISTEN_FIRST_MS = 100;
const RELISTEN_MAX_MS = 5000;

/** A change another node (or this one) committed. */
export interface ChangeNotice {
  /** What it changed (`documents`, `brains`); `*` when anything may have changed. */
  topics: readonly string[];
  /** Committed by this node, another node, or unknown (missed while not listening). */
  origin: "local" | "remote" | "missed";
}

/** The announcing and listening of one node. */
export class ChangeNotifier {
  readonly #conn: PostgresConnection;
  readonly #logger: Logger;
  readonly #node = crypto.randomUUID();
  readonly #listeners = new Set<(notice: ChangeNotice) => void>();
  #client: postgres.Sql | null = null;
  #listening = false;
  #generation = 0;
  #deafReads = 0;
  #closed = false;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #retryMs = RELISTEN_FIRST_MS;
  /** Whether the failure to listen was logged (once until listening works again). */
  #warned = false;

  /** Announces `conn`'s commits; call `start` to hear other nodes'. */
  constructor(conn: PostgresConnection, options: { logger?: Logger } = {}) {
    this.#conn = conn;
    this.#logger = options.logger ?? conn.logger;
    conn.onCommit(async (tx, topics) => {
      await tx`SELECT pg_notify(${CHANGES_CHANNEL}, ${this.#payload(topics)})`;
    });
    conn.onCommitted((topics) => this.#changed({ topics: [...topics], origin: "local" }));
  }

  /**
   * Starts listening on a connection of its own (the pool's settings, one connection). Resolves
   * once listening; a failure is logged and retried, the stamp staying new at every call meanwhile.
   */
  async start(): Promise<void> {
    if (this.#client !== null || this.#closed) return;
    this.#client = openListener(this.#conn.pool, {
      notify: (channel, payload) => this.#heard(channel, payload),
      closed: () => this.#dropped(),
    });
    await this.#listen();
  }

  /** Whether notices of other nodes are being heard. */
  get listening(): boolean {
    return this.#listening;
  }

  /**
   * The cache stamp: different from every earlier value once any node committed a change. While
   * not listening, new at every call.
   */
  current(): string {
    return this.#listening
      ? `${this.#generation}`
      : `deaf.${this.#generation}.${++this.#deafReads}`;
  }

  /** Calls `listener` for every change committed by any node; returns the function that stops. */
  watch(listener: (notice: ChangeNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Stops listening and closes the listening connection. Harmless twice. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    await client?.end({ timeout: 1 }).catch(() => {});
  }

  async #listen(): Promise<void> {
    if (this.#client === null || this.#closed) return;
    try {
      await this.#client.unsafe(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      if (this.#closed) return;
      if (!this.#warned) {
        this.#logger.warn(
          "cannot LISTEN for other nodes' changes (a pooler in transaction mode cannot); the search cache is off until it can",
          { error: String(err) },
        );
      }
      this.#warned = true;
      this.#retryLater();
      return;
    }
    if (this.#closed) return;
    this.#retryMs = RELISTEN_FIRST_MS;
    if (this.#warned) this.#logger.info("listening for other nodes' changes again");
    this.#warned = false;
    this.#listening = true;
    // Whatever was committed while no one listened is unknown: treat it as a change of anything.
    this.#changed({ topics: ["*"], origin: "missed" });
  }

  #dropped(): void {
    if (this.#closed) return;
    this.#listening = false;
    this.#generation++;
    this.#retryLater();
  }

  #retryLater(): void {
    if (this.#closed || this.#retry !== undefined) return;
    const wait = this.#retryMs;
    this.#retryMs = Math.min(RELISTEN_MAX_MS, this.#retryMs * 2);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#listen();
    }, wait);
    // Listening again must never keep a finished process alive.
    Deno.unrefTimer(this.#retry);
  }

  #heard(channel: string, payload: string): void {
    if (channel !== CHANGES_CHANNEL) return;
    let notice: ChangeNotice;
    try {
      const parsed = JSON.parse(payload) as { node?: unknown; topics?: unknown };
      // This node's own commits were counted when they committed.
      if (parsed.node === this.#node) return;
      const topics = Array.isArray(parsed.topics) ? parsed.topics.filter(isString) : ["*"];
      notice = { topics: topics.length > 0 ? topics : ["*"], origin: "remote" };
    } catch {
      // A notice engram did not send: anything may have changed.
      notice = { topics: ["*"], origin: "remote" };
    }
    this.#changed(notice);
  }

  #changed(notice: ChangeNotice): void {
    this.#generation++;
    for (const listener of [...this.#listeners]) {
      try {
        listener(notice);
      } catch (err) {
        this.#logger.warn("a change listener failed", { error: String(err) });
      }
    }
  }

  #payload(topics: ReadonlySet<string>): string {
    const payload = JSON.stringify({ node: this.#node, topics: [...topics] });
    return payload.length <= MAX_PAYLOAD
      ? payload
      : JSON.stringify({ node: this.#node, topics: ["*"] });
  }
}

/**
 * A one-connection client with the pool's settings, for LISTEN alone (as postgres.js's own
 * `listen` makes one), that says when its connection closes: postgres.js's `listen` reconnects on
 * its own but gives up silently if the server is still down, which would leave the caches stale.
 */
function openListener(
  pool: postgres.Sql,
  on: { notify: (channel: string, payload: string) => void; closed: () => void },
): postgres.Sql {
  // The parsed options of the pool, as postgres.js's own `listen` passes them on; `onnotify` is
  // an option its types do not declare.
  const options = {
    ...pool.options,
    max: 1,
    idle_timeout: null,
    max_lifetime: null,
    fetch_types: false,
    onnotify: on.notify,
    onclose: on.closed,
  };
  return postgres(options as unknown as postgres.Options<Record<string, never>>);
}

function isString(x: unknown): x is string {
  return typeof x === "string";
}
