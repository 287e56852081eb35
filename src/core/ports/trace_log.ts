/**
 * @module The upstream-trace port: one row per call engram makes to an upstream server, kept
 * beside the audit log (which records the calls agents make to engram) and bounded by retention.
 */

/** One upstream call. */
export interface UpstreamTrace {
  at: string;
  server: string;
  /** Tool or prompt name, resource URI template or URI, or the listing (`tools/list`, …). */
  capability: string;
  kind: "tool" | "resource" | "prompt" | "list";
  latency_ms: number;
  outcome: "ok" | "error";
  /** engram's error code when it failed. */
  error_code: string | null;
  bytes_in: number;
  bytes_out: number;
  /** Who made the call: a client id (`cli` for the operator). */
  caller: string | null;
  /** The transport the caller used to reach engram, when an agent made the call. */
  transport: string | null;
}

/** Where traces go. Writing may be deferred and batched; it never fails the traced call. */
export interface TraceSink {
  /** Records one upstream call. */
  trace(entry: UpstreamTrace): Promise<void>;
}

/** Reading traces back, and keeping them bounded. */
export interface TraceReader {
  /** Traces since `since` (ISO time), oldest first, of one server when given. */
  traces(options: { since: string; server?: string }): AsyncIterable<UpstreamTrace>;
  /** Deletes traces older than `before`; returns how many went. */
  pruneTraces(before: string): Promise<number>;
}
