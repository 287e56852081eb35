/**
 * @module The folders a stdio client shares as `roots` (MCP client/roots): asked for after
 * initialisation and again on `notifications/roots/list_changed`, kept per session.
 */
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import { z } from "zod";
import type { Logger } from "../../core/logger.ts";
import { RootsListChangedNotificationSchema } from "./session/mcp_protocol.ts";
import type { SessionServer } from "./session/session_server.ts";

/** A roots/list result, each root's URI checked one by one afterwards. */
const LenientRootsSchema = z.object({ roots: z.array(z.looseObject({ uri: z.string() })) });

/** How long a `roots/list` may take before the session carries on without the client's roots. */
const ROOTS_TIMEOUT_MS = 5_000;

/** The client's current file roots for one session. */
export interface ClientRoots {
  /**
   * The usable folders the client shares now. Waits for a `roots/list` still in flight, so a tool
   * call sent after `list_changed` sees the new roots.
   */
  current(): Promise<readonly string[]>;
}

/** Options for {@link trackClientRoots}. */
export interface ClientRootsOptions {
  /** The server's stderr logger (never the client's: the lines are for the operator). */
  logger: Logger;
  /** The user's home directory: a root of exactly this folder is too broad and is ignored. */
  home?: string;
}

/**
 * Asks the client for its roots once it is initialised (when it declares the `roots` capability)
 * and whenever it says they changed. A failed or timed-out request is logged and leaves the
 * session with the configured roots only: roots the client said are stale are not kept.
 */
export function trackClientRoots(server: SessionServer, options: ClientRootsOptions): ClientRoots {
  const { logger } = options;
  let roots: readonly string[] = [];
  let pending: Promise<void> | null = null;
  let generation = 0;

  const refresh = () => {
    if (!server.getClientCapabilities()?.roots) return;
    const mine = ++generation;
    const run = fetchRoots(server, options).then(
      (found) => {
        if (mine !== generation) return;
        roots = found;
        logger.info(
          found.length
            ? `client shares file roots: ${found.join(", ")}`
            : "client shares no usable file roots",
        );
      },
      (err) => {
        if (mine !== generation) return;
        roots = [];
        logger.warn(
          "roots/list failed; only mcp.allowed_file_roots apply in this session",
          { error: (err as Error).message },
        );
      },
    );
    pending = run;
    void run.finally(() => {
      if (pending === run) pending = null;
    });
  };

  const previous = server.oninitialized;
  server.oninitialized = () => {
    previous?.();
    refresh();
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => refresh());

  return {
    current: async () => {
      // A refresh that starts while this one is awaited is awaited too.
      while (pending) await pending;
      return roots;
    },
  };
}

async function fetchRoots(server: SessionServer, options: ClientRootsOptions): Promise<string[]> {
  // Not server.listRoots(): its schema rejects the whole list for one non-file:// root, while a
  // bad root should cost only itself.
  const result = await server.request({ method: "roots/list" }, LenientRootsSchema, {
    timeout: ROOTS_TIMEOUT_MS,
  });
  const home = options.home ? await realOrSame(resolve(options.home)) : undefined;
  const out: string[] = [];
  for (const root of result.roots) {
    const folder = await usableFolder(root.uri, home, options.logger);
    if (folder !== null && !out.includes(folder)) out.push(folder);
  }
  return out;
}

/** The folder a root URI names, or null (logged) when it is not a local folder engram may use. */
async function usableFolder(uri: string, home: string | undefined, logger: Logger) {
  const ignore = (why: string) => {
    logger.warn(`ignoring client root ${JSON.stringify(uri)}: ${why}`);
    return null;
  };
  let path: string;
  try {
    if (!uri.startsWith("file://")) return ignore("not a file:// URI");
    path = resolve(fileURLToPath(uri));
  } catch (err) {
    return ignore((err as Error).message);
  }
  const real = await realOrSame(path);
  if (real === "/" || real === home) {
    return ignore(
      `${
        real === "/" ? "the whole file system" : "the home directory itself"
      } is too broad to follow; share a project folder instead`,
    );
  }
  return path;
}

/** The real path of `path`, or `path` itself when it cannot be resolved (checked again per read). */
async function realOrSame(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch {
    return path;
  }
}
