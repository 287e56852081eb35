/**
 * @module The set-up every `engram mcp` command about upstream servers shares: config, the open
 * database, the server catalog (YAML plus imported servers), and — for commands that judge or
 * start servers — the launch facts of this machine, gathered once.
 */
import type { ConfigFlags, ResolvedConfig } from "../config/load.ts";
import { gatherLaunchFacts } from "../mcp/client/launch_facts.ts";
import type { LaunchFacts } from "../mcp/client/launch_rules.ts";
import { type CatalogEntry, loadCatalog } from "../mcp/client/upstream_catalog.ts";
import type { CommandContext } from "./context.ts";
import type { Mode } from "./permissions.ts";
import { type Runtime, withRuntime } from "./runtime.ts";

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
