/**
 * @module What `engram stdio` and `engram serve` run on: the tool selection (checked before
 * anything opens), the storage, the upstream tools when servers are configured, the run
 * permissions the mode does not need dropped, the job runner, and the deps every MCP session
 * gets — and the one way down.
 */
import type { EnvSnapshot } from "../config/env.ts";
import type { ResolvedConfig } from "../config/load.ts";
import type { JobRunner } from "../core/job_runner.ts";
import type { Logger } from "../core/logger.ts";
import type { ServerDeps } from "../mcp/server/factory.ts";
import { checkToolList, parseToolList, SERVER_TOOLS_KEY } from "../mcp/server/tool_selection.ts";
import { MEMORY_TOOLS } from "../mcp/server/tools/index.ts";
import { ToolListing } from "../mcp/server/tool_listing.ts";
import { applyModePermissions } from "./permissions.ts";
import { createJobRunner, openRuntime, type Runtime, sessionDeps } from "./runtime.ts";
import { serveUpstreamTools } from "./upstream_tools.ts";

/** A serving process's parts. */
export interface Serving {
  runtime: Runtime;
  jobs: JobRunner;
  /** The deps of every MCP session, but its caller. */
  session: Omit<ServerDeps, "caller">;
  /** Lets this process's jobs finish, then closes the upstream connections and the storage. */
  close(): Promise<void>;
}

/**
 * Opens what `mode` serves with. `tools`: the `--tools` list as typed; without it the config's
 * `server.tools` (checked against the memory tools either way).
 */
export async function startServing(
  mode: "stdio" | "serve",
  config: ResolvedConfig,
  o: { env: EnvSnapshot; cwd: string; logger: Logger; tools?: string },
): Promise<Serving> {
  const known = MEMORY_TOOLS.map((t) => t.name);
  const tools = o.tools === undefined
    ? config.http.tools && checkToolList(config.http.tools, known, { where: SERVER_TOOLS_KEY })
    : parseToolList(o.tools, known);
  const { logger } = o;
  const runtime = await openRuntime(config, { logger });
  try {
    const upstream = await serveUpstreamTools(runtime, config, { env: o.env, logger });
    const revoked = await applyModePermissions(mode, config, { servers: upstream?.servers });
    logger.debug("permissions revoked", { revoked });
    const jobs = createJobRunner(runtime, { config, logger });
    return {
      runtime,
      jobs,
      session: {
        ...sessionDeps(runtime, {
          config,
          logger,
          cwd: o.cwd,
          jobs,
          upstream: upstream?.tools,
          tools,
        }),
        // Generated on the first tools/list, then shared by every session (start-up skips it).
        toolListing: new ToolListing(MEMORY_TOOLS),
      },
      close: async () => {
        // Background jobs this process started finish before it exits; a killed process leaves
        // them to the next.
        await jobs.drain();
        await upstream?.close();
        await runtime.close();
      },
    };
  } catch (err) {
    await runtime.close();
    throw err;
  }
}
