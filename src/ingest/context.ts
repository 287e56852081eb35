/** @module What the ingestion tools need from configuration. */

/** Ingestion settings of this process (background jobs run on ToolContext.jobs). */
export interface IngestContext {
  /** Folders memory_ingest_file may read (mcp.allowed_file_roots). */
  roots: readonly string[];
  /**
   * Folders the connected client shares as MCP roots (stdio sessions only), read per call because
   * a `roots/list` may still be in flight.
   */
  clientRoots?: () => Promise<readonly string[]>;
  /** Base for relative paths. */
  cwd: string;
  /** Files above this size are ingested as background jobs. */
  queueBytes: number;
  /** Hosts memory_ingest_url may fetch even when they resolve to private addresses. */
  allowedUrlHosts: readonly string[];
  urlTimeoutMs: number;
}
