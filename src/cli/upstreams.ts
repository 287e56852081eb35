/**
 * @module The set-up every `engram mcp` command about upstream servers shares: config, the open
 * database, the server catalog (YAML plus imported servers), the launch facts of this machine
 * (gathered once), and — for commands that reach servers — the connection manager, with what
 * upstreams may ask of engram (roots, sampling through the provider stack, elicitation on this
 * terminal), each server's last status recorded and every upstream call traced.
 */
import { dirname, resolve } from "node:path";
import type { ConfigFlags, ResolvedConfig } from "../config/load.ts";
import type { UpstreamTrace } from "../core/ports/trace_log.ts";
import type { CallerContext } from "../core/types.ts";
import { type ApprovalBook, databaseBook, lockfileBook } from "../mcp/client/approval_book.ts";
import { terminalElicitation } from "../mcp/client/elicitation_prompt.ts";
import { gatherLaunchFacts } from "../mcp/client/launch_facts.ts";
import type { LaunchFacts } from "../mcp/client/launch_rules.ts";
import { sampleWithStack } from "../mcp/client/model_sampling.ts";
import type { NestedHost } from "../mcp/client/nested_requests.ts";
import { type CatalogEntry, loadCatalog } from "../mcp/client/upstream_catalog.ts";
import { type CallTrace, UpstreamConnections } from "../mcp/client/upstream_connections.ts";
import type { StatusChange } from "../mcp/client/upstream_session.ts";
import type { CommandContext } from "./context.ts";
import type { Mode } from "./permissions.ts";
import { type Runtime, withRuntime } from "./runtime.ts";
import { stdinLines } from "./stdin_lines.ts";

/** What an upstream command works with. */
export interface UpstreamSetup {
  runtime: Runtime;
  config: ResolvedConfig;
  catalog: CatalogEntry[];
  /** Present when the command judges or starts servers. */
  facts?: LaunchFacts;
}

/**
 * Runs `fn` with the catalog; `mode` decides the permissions kept (`mcp-static` judges servers,
 * `mcp-live` also reaches them, `cli` only changes database state).
 */
export async function withUpstreams<T>(
  ctx: CommandContext,
  flags: ConfigFlags,
  options: { mode: Exclude<Mode, "serve" | "stdio" | "ingest"> },
  fn: (setup: UpstreamSetup) => Promise<T>,
): Promise<T> {
  return await withRuntime(ctx, flags, async (runtime, config) => {
    const catalog = await loadCatalog(config.mcp, runtime.upstreams);
    const facts = options.mode === "cli" ? undefined : await gatherLaunchFacts(config.mcp, {
      env: ctx.env,
      dataDir: config.dataDir,
    });
    return await fn({ runtime, config, catalog, facts });
  }, { mode: options.mode });
}

/**
 * The connection manager over every usable server of the catalog. Upstreams may ask for roots
 * (`mcp.allowed_file_roots`), for sampling (the provider stack, where a server's policy allows),
 * and — on a terminal — for elicitation, answered by the operator at a prompt. Close it with
 * `closeAll()`.
 */
export function connectUpstreams(
  setup: Required<UpstreamSetup>,
  ctx: CommandContext,
  options: { caller?: CallerContext; interactive?: boolean } = {},
): UpstreamConnections {
  const { runtime, config } = setup;
  const stack = runtime.providers.background();
  const host: NestedHost = {
    roots: config.mcp.allowed_file_roots,
    sample: (params, c) => sampleWithStack(stack, params, { signal: c.signal }),
    ...(options.interactive && ctx.stdinIsTerminal
      ? {
        elicit: terminalElicitation({
          readLine: stdinLines(ctx.stdin),
          write: (t) => ctx.out.warn(t),
        }),
      }
      : {}),
  };
  const caller = options.caller;
  return new UpstreamConnections(
    setup.catalog.filter((e) => !e.problem).map((e) => e.config),
    setup.facts,
    {
      maxResultBytes: config.mcp.max_result_bytes,
      requestTimeoutMs: config.mcp.request_timeout_ms,
      host,
      onStatus: statusRecorder(runtime),
      onCall: (call) => void runtime.traces.trace(traceOf(call, caller)),
    },
  );
}

/**
 * Records each connection's status change for `engram mcp servers`; bookkeeping, so a busy
 * database never fails the call or command that changed it.
 */
export function statusRecorder(
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
export function traceOf(call: CallTrace, caller?: CallerContext): UpstreamTrace {
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

/**
 * Where approvals are kept: the lockfile named by `mcp.approvals_lock` (relative to the config
 * file's folder), else the database.
 */
export function approvalBook(setup: Pick<UpstreamSetup, "config" | "runtime">): ApprovalBook {
  const lock = setup.config.mcp.approvals_lock;
  if (lock === undefined) return databaseBook(setup.runtime.approvals);
  // The key can only come from a config file, so there is one to resolve against.
  return lockfileBook(resolve(dirname(setup.config.configFile!), lock));
}
