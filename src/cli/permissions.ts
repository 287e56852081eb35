/**
 * @module Dropping Deno permissions a mode does not need, right after start-up (docs/operations.md#deno-permissions-by-mode).
 *
 * Only `run` can be narrowed command by command (the ceiling is a list); the others are dropped
 * whole once start-up has used them. SQLite keeps its open file handles after read/write go.
 */
import type { ResolvedConfig } from "../config/load.ts";
import type { McpServerConfig } from "../config/mcp_servers.ts";
import { RUN_CEILING } from "../config/permissions.ts";

/**
 * The permission-scoped modes. `mcp-static` is for operator commands that judge upstream servers
 * without connecting (`engram mcp servers`: the launch rules ask Deno what it may run, and probe
 * bubblewrap); `mcp-live` also reaches them (`doctor`, `discover`, `call`).
 */
export type Mode = "serve" | "stdio" | "cli" | "ingest" | "mcp-static" | "mcp-live";

/**
 * Commands the upstream servers may be launched with (global and per-server lists), plus the
 * helpers around them: `kill` stops a server's process group, `perl` starts it without engram's
 * descriptors, `bwrap` runs `restricted` ones, `pasta` gives those with `network: true` their own
 * network.
 * `servers` is every server engram knows (the YAML's, and those imported into the database).
 */
function configuredRunAllowlist(
  config: ResolvedConfig,
  servers: readonly McpServerConfig[],
): string[] {
  const stdio = servers.flatMap((s) => s.transport === "stdio" ? [s] : []);
  const perServer = stdio.flatMap((s) => s.stdio_allowed_commands);
  const helpers = [
    ...(stdio.length ? ["kill", "perl"] : []),
    ...(stdio.some((s) => s.sandbox_profile === "restricted") ? ["bwrap"] : []),
    ...(stdio.some((s) => s.sandbox_profile === "restricted" && s.network) ? ["pasta"] : []),
  ];
  return [...new Set([...config.mcp.stdio_allowed_commands, ...perServer, ...helpers])];
}

/**
 * Revokes what `mode` does not need. Call after config is loaded and the database is open;
 * `options.servers` lists the upstream servers the database adds to the YAML's.
 */
export async function applyModePermissions(
  mode: Mode,
  config: ResolvedConfig,
  options: { servers?: readonly McpServerConfig[] } = {},
): Promise<string[]> {
  const servers = options.servers ?? config.mcp.mcp_servers;
  const revoked: string[] = [];
  const revoke = async (desc: Deno.PermissionDescriptor, label: string) => {
    await Deno.permissions.revoke(desc);
    revoked.push(label);
  };
  // env is kept in every mode: Deno cannot narrow a granted --allow-env to ENGRAM_*, and
  // libraries read variables at call time (yaml reads LOG_TOKENS per parse, node-html-markdown
  // LOG_PERF per conversion), so revoking it breaks them midway.
  const httpModels = config.providers.some((p) => p.type === "openai" || p.type === "anthropic");
  // A PostgreSQL pool opens connections as it needs them, for as long as the process runs.
  const postgres = config.storage.backend === "postgres";
  if (mode === "cli" || mode === "ingest") {
    await revoke({ name: "run" }, "run");
    // `engram ingest` fetches URLs; the other one-shot commands only reach configured model
    // providers (answers, embeddings).
    if (mode === "cli" && !httpModels && !postgres) await revoke({ name: "net" }, "net");
    return revoked;
  }
  const keep = new Set(configuredRunAllowlist(config, servers));
  for (const cmd of RUN_CEILING) {
    if (!keep.has(cmd)) await revoke({ name: "run", command: cmd }, `run:${cmd}`);
  }
  if (mode === "mcp-static") {
    // Judging servers reads config and database; nothing is fetched or written.
    if (!postgres) await revoke({ name: "net" }, "net");
    return revoked;
  }
  if (mode === "mcp-live") return revoked;
  // A write-tier session may ingest URLs; read tier never fetches anything.
  const needsNet = mode === "serve" || config.stdioTier !== "read" || httpModels || postgres ||
    servers.some((s) => s.transport === "http" || s.transport === "sse");
  if (!needsNet) await revoke({ name: "net" }, "net");
  if (
    mode === "stdio" && config.mcp.allowed_file_roots.length === 0 && servers.length === 0 &&
    // A pool reaching PostgreSQL through a Unix socket needs read and write on it.
    !postgres
  ) {
    // Nothing to write besides the already-open database.
    await revoke({ name: "write" }, "write");
    // A write-tier client may share its roots (memory_ingest_file), so only read tier drops read.
    if (config.stdioTier === "read") await revoke({ name: "read" }, "read");
  }
  return revoked;
}
