/**
 * @module What engram's commands and serving processes wire into the upstream client, without
 * loading it (the SDK client, launch facts, sampling come only with the first connection): where
 * approvals are kept, the options of a connection manager — each server's status recorded, every
 * upstream call traced — and the pruning of old traces.
 */
import { dirname, resolve } from "node:path";
import type { ResolvedConfig } from "../config/load.ts";
import type { McpServerConfig } from "../config/mcp_servers.ts";
import type { Logger } from "../core/logger.ts";
import type { UpstreamTrace } from "../core/ports/trace_log.ts";
import { pruneExpiredTraces } from "../core/audit/trace_retention.ts";
import type { CallerContext } from "../core/types.ts";
import {
  type ApprovalBook,
  databaseBook,
  lockfileBook,
} from "../mcp/client/approvals/approval_book.ts";
import type { NestedHost } from "../mcp/client/nested/nested_requests.ts";
import type { CatalogEntry } from "../mcp/client/upstream_catalog.ts";
import type {
  CallTrace,
  UpstreamConnectionsOptions,
} from "../mcp/client/session/upstream_connections.ts";
import type { StatusChange } from "../mcp/client/session/upstream_session.ts";
import type { Runtime } from "./runtime.ts";

/**
 * Where approvals are kept: the lockfile named by `mcp.approvals_lock` (relative to the config
 * file's folder), else the database.
 */
export function approvalBook(
  setup: { config: ResolvedConfig; runtime: Pick<Runtime, "approvals"> },
): ApprovalBook {
  const lock = setup.config.mcp.approvals_lock;
  if (lock === undefined) return databaseBook(setup.runtime.approvals);
  // The key can only come from a config file, so there is one to resolve against.
  return lockfileBook(resolve(dirname(setup.config.configFile!), lock));
}

/**
 * The servers and options of a connection manager: every usable server of `catalog`, the
 * configured limits, `mcp.allowed_file_roots` offered as roots, each status change recorded and
 * every call traced as made by `caller()` (none: the CLI).
 */
export function connectionOptions(
  catalog: readonly CatalogEntry[],
  o: {
    runtime: Pick<Runtime, "upstreams" | "traces">;
    config: ResolvedConfig;
    caller: () => CallerContext | undefined;
    /** How upstreams' sampling and elicitation requests are answered. */
    host: Pick<NestedHost, "sample" | "elicit">;
  },
): { servers: McpServerConfig[]; options: UpstreamConnectionsOptions } {
  const { runtime, config } = o;
  return {
    servers: catalog.filter((e) => !e.problem).map((e) => e.config),
    options: {
      maxResultBytes: config.mcp.max_result_bytes,
      requestTimeoutMs: config.mcp.request_timeout_ms,
      elicitationTimeoutMs: config.mcp.elicitation_timeout_ms,
      host: { roots: config.mcp.allowed_file_roots, ...o.host },
      onStatus: statusRecorder(runtime),
      onCall: (call) => void runtime.traces.trace(traceOf(call, o.caller())),
    },
  };
}

/**
 * Deletes traces past `mcp.trace_retention_days`. Bookkeeping: a database busy with a running
 * server's writes must not fail what the operator asked for, and the next start prunes again; the
 * failure goes to `logger` when there is one.
 */
export async function pruneTracesQuietly(
  runtime: Pick<Runtime, "traces">,
  config: ResolvedConfig,
  logger?: Logger,
): Promise<void> {
  await pruneExpiredTraces(runtime.traces, {
    retentionDays: config.mcp.trace_retention_days,
  }).catch((err) => logger?.warn("could not prune old upstream traces", { error: String(err) }));
}

/**
 * Records each connection's status change for `engram mcp servers`; bookkeeping, so a busy
 * database never fails the call or command that changed it.
 */
function statusRecorder(
  runtime: Pick<Runtime, "upstreams">,
): (server: string, change: StatusChange) => void {
  return (server, change) => {
    runtime.upstreams.recordUpstreamStatus(server, {
      status: change.status,
      error: change.error?.message ?? null,
      at: change.at.toISOString(),
    }).catch(() => {});
  };
}

/** A trace row of an upstream call: a tool's own error result, a timeout or a cancel is an error. */
function traceOf(call: CallTrace, caller?: CallerContext): UpstreamTrace {
  return {
    at: new Date().toISOString(),
    server: call.server,
    capability: call.capability,
    kind: call.kind,
    latency_ms: call.latency_ms,
    outcome: call.outcome === "ok" ? "ok" : "error",
    error_code: call.outcome === "ok"
      ? null
      : call.outcome === "error"
      ? call.error_code ?? "internal"
      : call.outcome,
    bytes_in: call.bytes_in,
    bytes_out: call.bytes_out,
    caller: caller?.clientId ?? "cli",
    transport: caller?.transport ?? "cli",
  };
}
