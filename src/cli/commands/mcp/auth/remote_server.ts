/** @module The server argument of `engram mcp auth login|status|logout`: a remote upstream. */
import type { HttpServerConfig } from "../../../../config/mcp_servers.ts";
import { EngramError } from "../../../../core/errors.ts";
import { type CatalogEntry, findEntry } from "../../../../mcp/client/upstream_catalog.ts";

/** The remote server `name` of the catalog, or why it cannot log in. */
export function remoteServer(catalog: readonly CatalogEntry[], name: string): HttpServerConfig {
  const entry = findEntry(catalog, name);
  if (entry.problem) {
    throw new EngramError("invalid_argument", `server "${entry.config.name}" ${entry.problem}`);
  }
  const server = entry.config;
  if (server.transport === "stdio") {
    throw new EngramError(
      "invalid_argument",
      `server "${server.name}" is a stdio server: it gets its credentials from its env, not from an OAuth login; only http and sse servers log in`,
    );
  }
  return server;
}
