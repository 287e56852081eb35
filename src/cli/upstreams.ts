/**
 * @module The set-up every `engram mcp` command about upstream servers shares: config, the open
 * database, the server catalog (YAML plus imported servers), the launch facts of this machine
 * (gathered once), and — for commands that reach servers — the connection manager, with what
 * upstreams may ask of engram (roots, sampling through the provider stack, elicitation on this
 * terminal), each server's last status recorded and every upstream call traced. The one
 * construction of that manager, `openUpstreamConnections`, is here; serving processes load this
 * module on their first upstream call to use it too.
 */
import type { EnvSnapshot } from "../config/env.ts";
import type { ConfigFlags, ResolvedConfig } from "../config/load.ts";
import { secretKeySource } from "../config/secret_key.ts";
import type { McpServerConfig } from "../config/mcp_servers.ts";
import type { CallerContext } from "../core/types.ts";
import type { ApprovalBook } from "../mcp/client/approvals/approval_book.ts";
import { reviewDiscoveries, type ServerReview } from "../mcp/client/approvals/capability_review.ts";
import { terminalElicitation } from "../mcp/client/nested/elicitation_prompt.ts";
import { gatherLaunchFacts } from "../mcp/client/launch/launch_facts.ts";
import type { LaunchFacts } from "../mcp/client/launch/launch_rules.ts";
import { sampleWithStack } from "../mcp/client/nested/model_sampling.ts";
import { UpstreamOAuth } from "../mcp/client/oauth/upstream_oauth.ts";
import { type CatalogEntry, loadCatalog } from "../mcp/client/upstream_catalog.ts";
import {
  UpstreamConnections,
  type UpstreamConnectionsOptions,
} from "../mcp/client/session/upstream_connections.ts";
import type { CommandContext } from "./context.ts";
import { unlessAborted } from "./interrupt.ts";
import type { Mode } from "./permissions.ts";
import { type Runtime, withRuntime } from "./runtime.ts";
import { stdinLines } from "./stdin_lines.ts";
import { approvalBook, connectionOptions } from "./upstream_wiring.ts";

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
 * `mcp-live` also reaches them, `cli` only changes database state). The catalog is read once,
 * before permissions drop: imported servers live in the database, and their commands must stay
 * runnable too.
 */
export async function withUpstreams<T>(
  ctx: CommandContext,
  flags: ConfigFlags,
  options: {
    mode: Exclude<Mode, "serve" | "stdio" | "ingest">;
    /**
     * Launches whose run permissions are kept too, from the catalog: `engram mcp review` keeps
     * them for the server it is about to allowlist and start (the launch rules still judge it).
     */
    keepFor?: (catalog: readonly CatalogEntry[]) => McpServerConfig[];
  },
  fn: (setup: UpstreamSetup) => Promise<T>,
): Promise<T> {
  return await withRuntime<T, CatalogEntry[]>(ctx, flags, async (runtime, config, catalog) => {
    const facts = options.mode === "cli" ? undefined : await gatherLaunchFacts(config.mcp, {
      env: ctx.env,
      dataDir: config.dataDir,
      ...(config.configFile ? { configFile: config.configFile } : {}),
      trustedKeys: await trustedKeysOf(runtime),
    });
    return await fn({ runtime, config, catalog, facts });
  }, {
    mode: options.mode,
    load: async (runtime, config) => {
      const catalog = await loadCatalog(config.mcp, runtime.upstreams);
      const servers = catalog.map((e) => e.config);
      return { value: catalog, servers: [...servers, ...options.keepFor?.(catalog) ?? []] };
    },
  });
}

/** The review keys trusted through the database (they count while `mcp.review_keys` is empty). */
export async function trustedKeysOf(runtime: Pick<Runtime, "upstreams">): Promise<string[]> {
  return (await runtime.upstreams.listTrustedReviewKeys()).map((k) => k.key);
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
  return openUpstreamConnections(setup.catalog, {
    runtime,
    config,
    facts: setup.facts,
    caller: () => options.caller,
    host: {
      sample: (params, c) => sampleWithStack(stack, params, { signal: c.signal }),
      ...(options.interactive && ctx.stdinIsTerminal
        ? {
          elicit: terminalElicitation({
            readLine: stdinLines(ctx.stdin),
            write: (t) => ctx.out.warn(t),
          }),
        }
        : {}),
    },
  });
}

/**
 * The connection manager, constructed here only (the CLI's `connectUpstreams` and a serving
 * process's upstream tools both come through): the usable servers of `catalog` with the options of
 * `connectionOptions`, launches judged by `facts`, and `onEvent` told of each server's events.
 */
export function openUpstreamConnections(
  catalog: readonly CatalogEntry[],
  o: Parameters<typeof connectionOptions>[1] & {
    runtime: Pick<Runtime, "upstreamCredentials">;
    facts: LaunchFacts;
    onEvent?: UpstreamConnectionsOptions["onEvent"];
  },
): UpstreamConnections {
  const { servers, options } = connectionOptions(catalog, o);
  return new UpstreamConnections(servers, o.facts, {
    ...options,
    oauth: upstreamOAuth(o.runtime, o.config, o.facts.env),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
  });
}

/**
 * engram's OAuth client of remote upstreams (docs/upstream.md#oauth-upstreams): tokens in the
 * database, sealed under ENGRAM_SECRET_KEY or the data directory's key file.
 */
export function upstreamOAuth(
  runtime: Pick<Runtime, "upstreamCredentials">,
  config: Pick<ResolvedConfig, "dataDir">,
  env: EnvSnapshot,
): UpstreamOAuth {
  return new UpstreamOAuth({
    store: runtime.upstreamCredentials,
    keys: secretKeySource(env, config.dataDir),
    env,
  });
}

/**
 * Connects to the usable servers of `entries` at once (each bounded by the request timeout),
 * reviews what they list against `options.book` (default the configured approvals), then closes.
 * `interactive`: elicitation is answered at a terminal prompt; `signal` (untilInterrupted)
 * interrupts it.
 */
export async function reviewServers(
  u: UpstreamSetup,
  ctx: CommandContext,
  entries: readonly CatalogEntry[],
  options: { book?: ApprovalBook; interactive?: boolean; signal?: AbortSignal } = {},
): Promise<ServerReview[]> {
  const usable = entries.filter((e) => !e.problem);
  const connections = connectUpstreams({ ...u, facts: u.facts! }, ctx, {
    interactive: options.interactive,
  });
  try {
    const names = usable.map((e) => e.config.name);
    const { signal } = options;
    // Interrupted: the listings in flight are cancelled, and `finally` stops the servers.
    const discoveries = signal
      ? await unlessAborted(connections.discover(names, { signal }), signal)
      : await connections.discover(names);
    return await reviewDiscoveries(discoveries, {
      servers: usable.map((e) => e.config),
      book: options.book ?? approvalBook(u),
      sightings: u.runtime.approvals,
    });
  } finally {
    await connections.closeAll();
  }
}
