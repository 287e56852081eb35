/** @module `engram stdio`: the MCP server on stdin/stdout. */
import { describeDatabase } from "../open_storage.ts";
import { configSummary } from "../../config/config_file.ts";
import { loadConfig } from "../../config/load.ts";
import { createSessionServer } from "../../mcp/server/factory.ts";
import { compactWhenQuiet, exposedGc } from "../../mcp/server/idle_compaction.ts";
import { StdioTransport } from "../../mcp/server/stdio_transport.ts";
import { VERSION } from "../../version.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { stderrLogger } from "../logger.ts";
import { startServing } from "../serving.ts";

/** Usage of `engram stdio`. */
export const STDIO_SPEC: CommandSpec = {
  name: "stdio",
  usage: "engram stdio [--tier read|write|admin] [--brain SLUG] [--tools LIST]",
  summary:
    "Serve the memory tools over MCP on stdin/stdout (for Claude Code, Cursor, Claude Desktop). Logs go to stderr.",
  options: {
    tier: {
      type: "string",
      help: "TIER  read (default), write or admin: which tools the client sees",
    },
    brain: { type: "string", help: "SLUG  default brain for calls that name none" },
    tools: {
      type: "string",
      help:
        "LIST  list only these tools: names or globs, comma-separated (memory_search,memory_pack,mcp_files_*); else server.tools",
    },
  },
  positionals: [0, 0],
};

/** Runs the stdio server until stdin closes or a termination signal arrives. */
export async function stdioCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, STDIO_SPEC, ctx.out);
  if (!args) return 0;
  const config = loadConfig(
    {
      ...configFlags(args.values),
      tier: args.values.tier as string | undefined,
      brain: args.values.brain as string | undefined,
    },
    { env: ctx.env, cwd: ctx.cwd },
  );
  const logger = stderrLogger(config.logLevel);
  const serving = await startServing("stdio", config, {
    env: ctx.env,
    cwd: ctx.cwd,
    logger,
    tools: args.values.tools as string | undefined,
  });
  const { jobs } = serving;
  let onClosed = () => {};
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const server = createSessionServer({
    ...serving.session,
    caller: { clientId: "stdio", transport: "stdio", tier: config.stdioTier, brains: "*" },
    // Same machine: the folders the client shares as roots are files this process may read.
    clientRoots: { home: config.homeDir },
    onClose: () => onClosed(),
  });
  // Jobs left queued (or orphaned by a process that died) by an earlier run continue here.
  jobs.kick();
  const transport = new StdioTransport({ readable: ctx.stdin, writable: ctx.stdout });
  // The garbage of start-up goes once the client has been quiet for a second after it connected.
  const compaction = compactWhenQuiet({
    busy: () => server.requestsInFlight > 0,
    logger,
    collect: exposedGc(),
  });
  transport.onActivity = () => compaction.touch();
  transport.onNegotiated = (version) => {
    const client = server.getClientVersion();
    logger.info(
      `MCP session started: protocol ${version}, client ${client?.name ?? "?"} ${
        client?.version ?? ""
      }`.trim(),
    );
  };
  transport.onerror = (err) => logger.warn("stdio transport error", { error: err.message });
  const stop = () => void transport.close();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const s of signals) Deno.addSignalListener(s, stop);
  logger.info(
    `engram ${VERSION} serving MCP on stdio at tier ${config.stdioTier}; database ${
      describeDatabase(config)
    }; config ${configSummary(config.configLocation)}`,
  );
  await server.connect(transport);
  await closed;
  compaction.stop();
  for (const s of signals) Deno.removeSignalListener(s, stop);
  await serving.close();
  return 0;
}
