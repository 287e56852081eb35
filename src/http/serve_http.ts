/** @module Listening: Deno.serve around the app, and a bounded graceful shutdown. */
import { concealInternal } from "../core/internal_errors.ts";
import type { Logger } from "../core/logger.ts";
import { settlesWithin } from "../core/settles_within.ts";
import type { HttpApp } from "./app.ts";

/** A listening HTTP server. */
export interface RunningHttpServer {
  /** Base URL it listens on, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** Resolves once the server has stopped. */
  finished: Promise<void>;
  /** Stops accepting, lets in-flight requests finish (bounded by `graceMs`), closes every session. */
  shutdown(graceMs: number): Promise<void>;
}

/** Starts listening on `hostname:port` (port 0 picks a free one; `url` tells which). */
export function serveHttp(
  app: HttpApp,
  options: { hostname: string; port: number; logger: Logger },
): RunningHttpServer {
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: () => {},
    onError: (err) => {
      const e = concealInternal(err, { logger: options.logger, what: "HTTP handler" });
      return new Response(`${e.code}: ${e.message}`, { status: 500 });
    },
  }, app);
  const addr = server.addr;
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host}:${addr.port}`,
    finished: server.finished,
    shutdown: (graceMs) => stopping ??= shutdown(server, { app, graceMs }),
  };
}

async function shutdown(
  server: Deno.HttpServer,
  options: { app: HttpApp; graceMs: number },
): Promise<void> {
  const stopped = server.shutdown();
  // GET streams only ever carry notifications; ending them now loses nothing (clients resume).
  options.app.endIdleStreams();
  await settlesWithin(stopped, options.graceMs);
  // What is still open after the grace period (legacy SSE streams, slow calls) is cut.
  await options.app.close();
  await settlesWithin(stopped, 1_000);
}
