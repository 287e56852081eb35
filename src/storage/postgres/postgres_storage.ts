/**
 * @module The PostgreSQL storage backend: one pool, and the ports over it that the composition root
 * hands out one by one. As in the SQLite backend, each port is its own class beside its SQL, and
 * all of them share one PostgresConnection, so they join the same units of work
 * (docs/architecture.md#postgresql).
 */
import type { Logger } from "../../core/logger.ts";
import type { Storage } from "../../core/ports/storage.ts";
import {
  describeServer,
  openPool,
  PostgresConnection,
  type PostgresSettings,
} from "./connection.ts";
import { migrate } from "./migrations.ts";
import { PostgresApprovalStore } from "./postgres_approvals.ts";
import { PostgresAuditLog } from "./postgres_audit_log.ts";
import { PostgresBrainStore } from "./postgres_brains.ts";
import { PostgresDocumentStore } from "./postgres_documents.ts";
import { PostgresHealth } from "./postgres_health.ts";
import { PostgresJobQueue } from "./postgres_jobs.ts";
import { PostgresLockStore } from "./postgres_locks.ts";
import { PostgresSessionStore } from "./postgres_sessions.ts";
import { PostgresTokenStore } from "./postgres_tokens.ts";
import { PostgresUpstreamStore } from "./postgres_upstreams.ts";
import { PostgresOAuthStore } from "./oauth/postgres_oauth.ts";
import { PostgresUpstreamCredentialStore } from "./oauth/postgres_upstream_credentials.ts";
import { PostgresSearchIndex } from "./postgres_search_index.ts";
import { PostgresVectorIndex } from "./postgres_vectors.ts";
import { ChangeNotifier } from "./notify.ts";

/** Options of the PostgreSQL storage. */
export interface PostgresStorageOptions extends PostgresSettings {
  /** The search cache's budget in MiB; 0 turns it off. */
  searchCacheMb?: number;
  /** Hears about audit rows and after-commit work that failed. */
  logger?: Logger;
  /** The clock stored times come from (tests move it to expire leases and locks). */
  now?: () => Date;
}

/** Every port over one PostgreSQL pool. */
export class PostgresStorage implements Storage {
  readonly #conn: PostgresConnection;
  readonly brains: PostgresBrainStore;
  readonly documents: PostgresDocumentStore;
  readonly search: PostgresSearchIndex;
  readonly vectors: PostgresVectorIndex;
  /** Changes announced to and heard from other nodes (LISTEN/NOTIFY): the cache stamp. */
  readonly changes: ChangeNotifier;
  readonly jobs: PostgresJobQueue;
  readonly sessions: PostgresSessionStore;
  readonly locks: PostgresLockStore;
  readonly tokens: PostgresTokenStore;
  readonly oauth: PostgresOAuthStore;
  readonly upstreamCredentials: PostgresUpstreamCredentialStore;
  readonly upstreams: PostgresUpstreamStore;
  readonly approvals: PostgresApprovalStore;
  readonly audit: PostgresAuditLog;
  /** Traces share the audit log's batched writer. */
  readonly traces: PostgresAuditLog;
  readonly units: PostgresConnection;
  readonly health: PostgresHealth;
  #closing: Promise<void> | null = null;

  /** The ports over `conn` (migrated already: see `openPostgresStorage`). */
  constructor(conn: PostgresConnection, options: PostgresStorageOptions) {
    this.#conn = conn;
    this.units = conn;
    this.brains = new PostgresBrainStore(conn);
    this.changes = new ChangeNotifier(conn, { logger: options.logger });
    this.documents = new PostgresDocumentStore(conn, { changes: this.changes });
    this.search = new PostgresSearchIndex(conn, {
      searchCacheMb: options.searchCacheMb,
      stamp: this.changes,
      logger: options.logger,
    });
    this.vectors = new PostgresVectorIndex(conn, { logger: options.logger });
    this.jobs = new PostgresJobQueue(conn);
    this.sessions = new PostgresSessionStore(conn);
    this.locks = new PostgresLockStore(conn);
    this.tokens = new PostgresTokenStore(conn);
    this.oauth = new PostgresOAuthStore(conn);
    this.upstreamCredentials = new PostgresUpstreamCredentialStore(conn);
    this.upstreams = new PostgresUpstreamStore(conn);
    this.approvals = new PostgresApprovalStore(conn);
    this.audit = new PostgresAuditLog(conn, { logger: options.logger });
    this.traces = this.audit;
    this.health = new PostgresHealth(conn);
  }

  /** The connection underneath, for maintenance, tests and benchmarks. */
  get connection(): PostgresConnection {
    return this.#conn;
  }

  /**
   * Writes the queued audit rows, then ends the pool once statements under way are done. The
   * port's `close` returns nothing; awaiting this one is how a caller knows the rows are written.
   * Harmless twice.
   */
  close(): Promise<void> {
    this.#closing ??= this.audit.flush()
      .finally(() => Promise.all([this.search.close(), this.changes.close()]))
      .finally(() => this.#conn.close());
    return this.#closing;
  }
}

/** Opens a pool on `settings.url`, migrates the schema, and builds the ports over it. */
export async function openPostgresStorage(
  options: PostgresStorageOptions,
): Promise<PostgresStorage> {
  const server = describeServer(options.url);
  const sql = openPool(options);
  const conn = new PostgresConnection(sql, {
    now: options.now,
    logger: options.logger,
    server,
    statementTimeoutMs: options.statementTimeoutMs,
  });
  try {
    await migrate(sql);
  } catch (err) {
    await conn.close().catch(() => {});
    throw conn.translate(err);
  }
  const storage = new PostgresStorage(conn, options);
  // Listening before the first request, so caches are used from the start; a failure to listen
  // is logged and retried, and caches stay off until it works (notify.ts).
  await storage.changes.start();
  return storage;
}
