/**
 * @module Everything one storage backend provides, as the composition root receives it. Consumers
 * never take this whole bundle: each is handed the narrow ports it uses.
 */
import type { ApprovalStore } from "./approval_store.ts";
import type { AuditReader, AuditSink } from "./audit_log.ts";
import type { BrainStore } from "./brain_store.ts";
import type { DocumentStore } from "./document_store.ts";
import type { JobQueue } from "./job_queue.ts";
import type { LockStore } from "./lock_store.ts";
import type { OAuthStore } from "./oauth_store.ts";
import type { SearchIndex } from "./search_index.ts";
import type { SessionStore } from "./session_store.ts";
import type { TokenStore } from "./token_store.ts";
import type { TraceReader, TraceSink } from "./trace_log.ts";
import type { UnitOfWork } from "./unit_of_work.ts";
import type { UpstreamStore } from "./upstream_store.ts";
import type { UpstreamCredentialStore } from "./upstream_credentials.ts";
import type { VectorIndex } from "./vector_index.ts";

/** What a database holds, for the operator (after a restore, say). */
export interface StorageContents {
  /** The schema version the database is at. */
  schema_version: number;
  brains: number;
  /** Live documents (not forgotten). */
  documents: number;
  /** Every stored version of every document, forgotten ones included. */
  versions: number;
  sessions: number;
}

/** One check of the database's soundness and what it found. */
export interface StorageCheck {
  /** What was checked: `quick_check`, `integrity_check`, `fts:<table>`. */
  name: string;
  /** `damaged`: the check found damage; `not_run`: it could not run (a lock held too long). */
  status: "ok" | "damaged" | "not_run";
  /** What the check reported when it did not pass (at most a few lines). */
  problems: string[];
}

/** Health and contents of the storage, for supervisors and maintenance commands. */
export interface StorageHealth {
  /** Whether the database answers and has not been found corrupt (for /readyz). */
  ready(): Promise<boolean>;
  /** Counts of what the database holds. */
  contents(): Promise<StorageContents>;
  /**
   * Checks the database's soundness: `quick` (the page structure, a table at a time, letting other
   * work run between tables: for a server that just started) or `full` (every page, index and
   * full-text index: for `engram doctor`). A check that finds damage marks the storage corrupt
   * (`ready` turns false). An aborted `signal` stops a quick check between tables, which then
   * returns no result.
   */
  check(options: { level: "quick" | "full"; signal?: AbortSignal }): Promise<StorageCheck[]>;
}

/** One storage backend's ports, sharing one unit of work. */
export interface Storage {
  brains: BrainStore;
  documents: DocumentStore;
  search: SearchIndex;
  vectors: VectorIndex;
  jobs: JobQueue;
  sessions: SessionStore;
  locks: LockStore;
  tokens: TokenStore;
  /** engram serve's OAuth authorization server: clients, codes, grants, pairing codes. */
  oauth: OAuthStore;
  upstreams: UpstreamStore;
  /** What engram keeps to reach upstream servers that require OAuth. */
  upstreamCredentials: UpstreamCredentialStore;
  approvals: ApprovalStore;
  audit: AuditSink & AuditReader;
  traces: TraceSink & TraceReader;
  units: UnitOfWork;
  health: StorageHealth;
  /** Writes what is pending (audit rows) and releases the connection. */
  close(): void;
}
