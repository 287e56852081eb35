/**
 * @module The SQLite storage backend: one connection, and the ports over it that the composition
 * root hands out one by one. The ports are separate classes (one per file, beside their SQL) that
 * share the connection, so all of them join the same units of work and read caches checked
 * against the same stamp; no consumer can reach a wider interface than the port it was given.
 */
import type { Logger } from "../../core/logger.ts";
import type { Storage, StorageContents, StorageHealth } from "../../core/ports/storage.ts";
import type { UnitOfWork } from "../../core/ports/unit_of_work.ts";
import { openDatabase, type OpenOptions } from "./database.ts";
import { summarizeDatabase } from "./backup/database_summary.ts";
import { fullCheck, quickCheck } from "./backup/integrity_checks.ts";
import { SqliteApprovalStore } from "./sqlite_approvals.ts";
import { SqliteAuditLog } from "./sqlite_audit_log.ts";
import { SqliteBrainStore } from "./sqlite_brains.ts";
import { SqliteConnection } from "./sqlite_connection.ts";
import { SqliteDocumentStore } from "./sqlite_documents.ts";
import { SqliteJobQueue } from "./sqlite_jobs.ts";
import { SqliteLockStore } from "./sqlite_locks.ts";
import { SqliteOAuthStore } from "./oauth/sqlite_oauth.ts";
import { SqliteSearchIndex } from "./sqlite_search_index.ts";
import { SqliteSessionStore } from "./sqlite_sessions.ts";
import { SqliteTokenStore } from "./sqlite_tokens.ts";
import { SqliteUpstreamCredentialStore } from "./sqlite_upstream_credentials.ts";
import { SqliteUpstreamStore } from "./sqlite_upstreams.ts";
import { SqliteVectorIndex } from "./sqlite_vectors.ts";

/** Options of the SQLite storage. */
export interface SqliteStorageOptions extends OpenOptions {
  /** The search cache's budget in MiB; 0 turns it off. */
  searchCacheMb?: number;
  /** Hears about audit rows and after-commit work that failed. */
  logger?: Logger;
  /** The clock stored times come from (tests move it to expire leases and locks). */
  now?: () => Date;
}

/** Every port over one SQLite connection. */
export class SqliteStorage implements Storage {
  readonly #conn: SqliteConnection;
  readonly brains: SqliteBrainStore;
  readonly documents: SqliteDocumentStore;
  readonly search: SqliteSearchIndex;
  readonly vectors: SqliteVectorIndex;
  readonly jobs: SqliteJobQueue;
  readonly sessions: SqliteSessionStore;
  readonly locks: SqliteLockStore;
  readonly tokens: SqliteTokenStore;
  readonly oauth: SqliteOAuthStore;
  readonly upstreams: SqliteUpstreamStore;
  readonly upstreamCredentials: SqliteUpstreamCredentialStore;
  readonly approvals: SqliteApprovalStore;
  readonly audit: SqliteAuditLog;
  /** Traces share the audit log's batched writer. */
  readonly traces: SqliteAuditLog;
  readonly units: UnitOfWork;
  readonly health: StorageHealth;

  /** The ports over `conn`. */
  constructor(conn: SqliteConnection, options: SqliteStorageOptions = {}) {
    this.#conn = conn;
    this.units = conn;
    this.brains = new SqliteBrainStore(conn);
    this.documents = new SqliteDocumentStore(conn);
    this.search = new SqliteSearchIndex(conn, { searchCacheMb: options.searchCacheMb });
    this.vectors = new SqliteVectorIndex(conn);
    this.jobs = new SqliteJobQueue(conn);
    this.sessions = new SqliteSessionStore(conn);
    this.locks = new SqliteLockStore(conn);
    this.tokens = new SqliteTokenStore(conn);
    this.oauth = new SqliteOAuthStore(conn);
    this.upstreams = new SqliteUpstreamStore(conn);
    this.upstreamCredentials = new SqliteUpstreamCredentialStore(conn);
    this.approvals = new SqliteApprovalStore(conn);
    this.audit = new SqliteAuditLog(conn, { logger: options.logger });
    this.traces = this.audit;
    this.health = {
      // Reading the schema touches the file's first page (SELECT 1 reads none); a file found
      // corrupt anywhere, by a failed call or a check, stays not ready until it is restored.
      ready: async () =>
        conn.corruption === null &&
        await conn.read(() =>
          conn.prepare("SELECT count(*) FROM sqlite_schema").get() !== undefined
        ),
      contents: (): Promise<StorageContents> => conn.read(() => summarizeDatabase(conn.db)),
      check: ({ level, signal }) =>
        level === "quick" ? quickCheck(conn, { signal }) : fullCheck(conn),
    };
  }

  /** The connection underneath, for SQLite maintenance (backups) and benchmarks. */
  get connection(): SqliteConnection {
    return this.#conn;
  }

  close(): void {
    if (!this.#conn.db.isOpen) return;
    try {
      this.audit.flush();
    } finally {
      this.#conn.close();
    }
  }
}

/** Opens (creating and migrating) the database at `file` and the ports over it. */
export function openSqliteStorage(file: string, options: SqliteStorageOptions = {}): SqliteStorage {
  const db = openDatabase(file, { synchronous: options.synchronous });
  return new SqliteStorage(
    new SqliteConnection(db, { now: options.now, logger: options.logger, file }),
    options,
  );
}
