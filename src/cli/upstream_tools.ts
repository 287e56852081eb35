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
import type { Logger } from "../core/logger.ts";
import type { CallerContext } from "../core/types.ts";
import type {
  ExposedPrompt,
  ExposedTool,
  ExposurePlan,
} from "../mcp/client/exposure/exposure_plan.ts";
import type { TemplateRead } from "../mcp/client/exposure/upstream_exposure.ts";
import { type CatalogEntry, loadCatalog } from "../mcp/client/upstream_catalog.ts";
import type { UpstreamConnections } from "../mcp/client/session/upstream_connections.ts";
import type { DownstreamClient, UpstreamTools } from "../mcp/server/upstream_tools.ts";
import type { Runtime } from "./runtime.ts";

/** The exposed tools of a serving process, and what to close when it stops. */
export interface ServedUpstreams {
  tools: UpstreamTools<ExposedTool, ExposedPrompt, TemplateRead>;
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
  // Loaded only when servers are configured: a memory-only session never loads the client, and
  // the connection manager (the SDK client) waits for the first call of an upstream tool.
  const [{ UpstreamExposure }, { exposurePlan }, wiring] = await Promise.all([
    import("../mcp/client/exposure/upstream_exposure.ts"),
    import("../mcp/client/exposure/exposure_plan.ts"),
    import("./upstream_wiring.ts"),
  ]);
  // Traces older than the retention go when a process that makes upstream calls starts.
  await wiring.pruneTracesQuietly(runtime, config, o.logger);
  const book = wiring.approvalBook({ config, runtime });
  const catalogNow = () => loadCatalog(config.mcp, runtime.upstreams);
  // The first plan is made from the catalog just read; each later one reads it afresh.
  let unused: CatalogEntry[] | undefined = catalog;
  let last: { inputs: string; plan: ExposurePlan } | undefined;
  const loadPlan = async (): Promise<ExposurePlan> => {
    const entries = unused ?? await catalogNow();
    unused = undefined;
    const approvals = await book.list();
    const sightings = await runtime.approvals.listSightings();
    // Read at every poll (other processes change them), worked out again only when changed.
    const inputs = JSON.stringify([entries, approvals, sightings]);
    if (last?.inputs !== inputs) {
      last = { inputs, plan: await exposurePlan(entries, { approvals, sightings }) };
    }
    return last.plan;
  };
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
    loadPlan,
    catalog: catalogNow,
    connections: () => connections ??= connect(),
    sightings: runtime.approvals,
    logger: o.logger,
    pollMs: config.changePollMs,
  });
  const connect = async (): Promise<UpstreamConnections> => {
    const [{ gatherLaunchFacts }, { openUpstreamConnections }, { sampleWithStack }] = await Promise
      .all([
        import("../mcp/client/launch/launch_facts.ts"),
        import("./upstreams.ts"),
        import("../mcp/client/nested/model_sampling.ts"),
      ]);
    const facts = await gatherLaunchFacts(config.mcp, {
      env: o.env,
      dataDir: config.dataDir,
      // The operator's review key, trusted in the database, counts while mcp.review_keys is empty.
      trustedKeys: (await runtime.upstreams.listTrustedReviewKeys()).map((k) => k.key),
    });
    const stack = runtime.providers.background();
    return openUpstreamConnections(await catalogNow(), {
      runtime,
      config,
      facts,
      caller: () => callers.getStore(),
      host: {
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
          if (agent?.elicit) return agent.elicit(params, c.signal);
          // A form is declined; a browser step nobody can show is refused, naming the capability.
          return params.mode === "url"
            ? Promise.reject(new Error("it declared no elicitation capability"))
            : Promise.resolve({ action: "decline" as const });
        },
      },
      onEvent: (server, event) => {
        if (event.kind === "list_changed") {
          void exposure.listChanged(server);
        }
      },
    });
  };
  const tools: UpstreamTools<ExposedTool, ExposedPrompt, TemplateRead> = {
    tools: (tier) => exposure.tools(tier),
    find: (name) => exposure.find(name),
    withdrawn: (name, kind) => exposure.withdrawn(name, kind),
    call: (tool, args, c) => {
      const downstream = c.downstream ?? {};
      running.set(tool.server, [...(running.get(tool.server) ?? []), downstream]);
      return callers.run(
        c.caller,
        () => exposure.call(tool, args, { signal: c.signal, onprogress: c.onprogress }),
      ).finally(() => {
        const now = running.get(tool.server) ?? [];
        now.splice(now.indexOf(downstream), 1);
      });
    },
    prompts: (tier) => exposure.prompts(tier),
    findPrompt: (name) => exposure.findPrompt(name),
    getPrompt: (prompt, args, c) =>
      callers.run(c.caller, () => exposure.getPrompt(prompt, args, { signal: c.signal })),
    templates: (tier) => exposure.templates(tier),
    findResource: (uri) => exposure.findResource(uri),
    readResource: (read, c) =>
      callers.run(c.caller, () => exposure.readResource(read, { signal: c.signal })),
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
