/**
 * @module Approved upstream tools for `engram stdio` and `engram serve`: the exposure and the
 * connection manager behind it, composed for a serving process. Nothing of the client is loaded
 * when no upstream server is configured, and no server is started (nor the sandbox probed) until
 * an agent first calls one of its tools. Each upstream call is traced with the agent that made it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { EnvSnapshot } from "../config/env.ts";
import type { ResolvedConfig } from "../config/load.ts";
import type { McpServerConfig } from "../config/mcp_servers.ts";
import { EngramError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { CallerContext } from "../core/types.ts";
import { pruneExpiredTraces } from "../core/trace_retention.ts";
import { loadCatalog } from "../mcp/client/upstream_catalog.ts";
import type { UpstreamConnections } from "../mcp/client/upstream_connections.ts";
import type { DownstreamClient, UpstreamTools } from "../mcp/server/upstream_tools.ts";
import type { Runtime } from "./runtime.ts";

/** The exposed tools of a serving process, and what to close when it stops. */
export interface ServedUpstreams {
  tools: UpstreamTools;
  /** Every configured server (for the run permissions kept at start-up). */
  servers: McpServerConfig[];
  close(): Promise<void>;
}

/** The upstream tools to offer, or undefined when no upstream server is configured. */
export async function serveUpstreamTools(
  runtime: Runtime,
  config: ResolvedConfig,
  o: { env: EnvSnapshot; logger: Logger },
): Promise<ServedUpstreams | undefined> {
  const catalog = await loadCatalog(config.mcp, runtime.upstreams);
  if (catalog.length === 0) return undefined;
  // Traces older than the retention go when a process that makes upstream calls starts.
  await pruneExpiredTraces(runtime.traces, {
    retentionDays: config.mcp.trace_retention_days,
  }).catch((err) => o.logger.warn("could not prune old upstream traces", { error: String(err) }));
  // Loaded only when servers are configured: a memory-only session never loads the client.
  const [{ UpstreamExposure }, { exposurePlan }, { approvalBook, statusRecorder, traceOf }] =
    await Promise.all([
      import("../mcp/client/upstream_exposure.ts"),
      import("../mcp/client/exposure_plan.ts"),
      import("./upstreams.ts"),
    ]);
  const book = approvalBook({ config, runtime });
  const catalogNow = () => loadCatalog(config.mcp, runtime.upstreams);
  const callers = new AsyncLocalStorage<CallerContext>();
  /**
   * Per server, the agents' clients whose calls to it are running, latest last: an upstream's
   * nested request arrives on its own connection, not within the call, so it goes to the agent
   * that called most recently (and is declined when none of them can answer).
   */
  const running = new Map<string, DownstreamClient[]>();
  const latest = (server: string, need: keyof DownstreamClient) =>
    (running.get(server) ?? []).findLast((d) => d[need] !== undefined);
  let connections: Promise<UpstreamConnections> | undefined;
  const exposure = await UpstreamExposure.open({
    loadPlan: async () =>
      exposurePlan(await catalogNow(), await book.list(), await runtime.approvals.listSightings()),
    catalog: catalogNow,
    connections: () => connections ??= connect(),
    sightings: runtime.approvals,
    logger: o.logger,
    pollMs: config.changePollMs,
  });
  const connect = async (): Promise<UpstreamConnections> => {
    const [{ gatherLaunchFacts }, { UpstreamConnections }, { sampleWithStack }] = await Promise
      .all([
        import("../mcp/client/launch_facts.ts"),
        import("../mcp/client/upstream_connections.ts"),
        import("../mcp/client/model_sampling.ts"),
      ]);
    const facts = await gatherLaunchFacts(config.mcp, { env: o.env, dataDir: config.dataDir });
    const stack = runtime.providers.background();
    const current = await catalogNow();
    return new UpstreamConnections(
      current.filter((e) => !e.problem).map((e) => e.config),
      facts,
      {
        maxResultBytes: config.mcp.max_result_bytes,
        requestTimeoutMs: config.mcp.request_timeout_ms,
        host: {
          roots: config.mcp.allowed_file_roots,
          // Configured models first; else the agent's own model when its client offers
          // sampling; else the extractive engine.
          sample: (params, c) => {
            const agent = stack.chats.length ? undefined : latest(c.server, "sample");
            return agent?.sample
              ? agent.sample(params, c.signal)
              : sampleWithStack(stack, params, { signal: c.signal });
          },
          elicit: (params, c) => {
            const agent = latest(c.server, "elicit");
            return agent?.elicit
              ? agent.elicit(params, c.signal)
              : Promise.resolve({ action: "decline" as const });
          },
        },
        onStatus: statusRecorder(runtime),
        onEvent: (server, event) => {
          if (event.kind === "list_changed" && event.list === "tools") {
            void exposure.listChanged(server);
          }
        },
        onCall: (call) => void runtime.traces.trace(traceOf(call, callers.getStore())),
      },
    );
  };
  const tools: UpstreamTools = {
    tools: (tier) => exposure.tools(tier),
    find: (name) => exposure.find(name),
    withdrawn: (name) => exposure.withdrawn(name),
    call: (tool, args, c) => {
      const current = exposure.find(tool.exposed);
      if (!current) {
        return Promise.reject(
          new EngramError(
            "forbidden",
            `${tool.exposed} was withdrawn while it was being called; list tools again`,
          ),
        );
      }
      const downstream = c.downstream ?? {};
      running.set(current.server, [...(running.get(current.server) ?? []), downstream]);
      return callers.run(
        c.caller,
        () => exposure.call(current, args, { signal: c.signal, onprogress: c.onprogress }),
      ).finally(() => {
        const now = running.get(current.server) ?? [];
        now.splice(now.indexOf(downstream), 1);
      });
    },
    onChange: (listener) => exposure.onChange(listener),
  };
  return {
    tools,
    servers: catalog.map((e) => e.config),
    close: async () => {
      exposure.close();
      if (connections) await (await connections).closeAll();
    },
  };
}
