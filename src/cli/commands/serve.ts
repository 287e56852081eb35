/** @module `engram serve`: MCP over Streamable HTTP (/mcp) and legacy HTTP+SSE (/sse), with bearer tokens. */
import { describeDatabase } from "../open_storage.ts";
import { configSummary } from "../../config/config_file.ts";
import { loadConfig } from "../../config/load.ts";
import { CORRUPT_DATABASE_FIX, EngramError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { StorageHealth } from "../../core/ports/storage.ts";
import type { Tier } from "../../core/types.ts";
import { createHttpApp } from "../../http/app.ts";
import { anonymousVerifier } from "../../http/auth.ts";
import { isLoopbackHost } from "../../core/loopback.ts";
import { serveHttp } from "../../http/serve_http.ts";
import { VERSION } from "../../version.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { stderrLogger } from "../logger.ts";
import { startServing } from "../serving.ts";
import type { ResolvedConfig } from "../../config/load.ts";
import { EngramAuthorizationServer } from "../../core/oauth/authorization_server.ts";
import { clientMetadataFetcher } from "../../http/oauth/client_metadata_fetch.ts";
import { fetchUrl } from "../../ingest/url_fetch.ts";
import type { Runtime } from "../runtime.ts";
import { consoleParts } from "../console_parts.ts";

/** Usage of `engram serve`. */
export const SERVE_SPEC: CommandSpec = {
  name: "serve",
  usage:
    "engram serve [--host 127.0.0.1] [--port 8787] [--insecure-no-auth [--tier read|write|admin]]",
  summary:
    "Serve MCP over Streamable HTTP (/mcp) and legacy HTTP+SSE (/sse); callers present bearer tokens from `engram tokens create`.",
  options: {
    host: { type: "string", help: "HOST  listen address (else server.host, 127.0.0.1)" },
    port: {
      type: "string",
      help: "PORT  listen port; 0 picks a free one (else server.port, 8787)",
    },
    "insecure-no-auth": {
      type: "boolean",
      help: "accept requests without a token as client `anonymous` (loopback addresses only)",
    },
    tier: { type: "string", help: "TIER  tier of --insecure-no-auth callers (default read)" },
  },
  positionals: [0, 0],
};

/** Runs the HTTP server until SIGINT or SIGTERM, then shuts down gracefully. */
export async function serveCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, SERVE_SPEC, ctx.out);
  if (!args) return 0;
  const config = loadConfig(configFlags(args.values), { env: ctx.env, cwd: ctx.cwd });
  const host = (args.values.host as string | undefined) ?? config.server.host;
  const port = parsePort(args.values.port as string | undefined, config.server.port);
  const noAuth = args.values["insecure-no-auth"] === true;
  const tier = parseTier(args.values.tier as string | undefined, noAuth);
  if (noAuth && !isLoopbackHost(host)) {
    throw new EngramError(
      "invalid_argument",
      `--insecure-no-auth only works on a loopback address, not ${host}; create tokens with engram tokens create instead`,
    );
  }
  const logger = stderrLogger(config.logLevel);
  const serving = await startServing("serve", config, { env: ctx.env, cwd: ctx.cwd, logger });
  const { runtime, jobs } = serving;
  const oauth = authorizationFor(config, runtime);
  // OAuth access tokens are bound to this server's /mcp; static tokens (no audience) pass anywhere.
  const audience = oauth ? { audience: oauth.audience } : {};
  const app = createHttpApp({
    settings: { ...config.http, host },
    mcp: serving.session,
    verifyToken: noAuth
      ? anonymousVerifier(tier)
      : (token) => runtime.tokens.verify(token, audience),
    ...(oauth ? { oauth: { server: oauth.server } } : {}),
    anonymous: noAuth,
    ready: () => runtime.health.ready(),
    logger,
    console: consoleParts(serving, { config, logger, env: ctx.env }),
  });
  let server;
  try {
    server = serveHttp(app, { hostname: host, port, logger });
  } catch (err) {
    await serving.close();
    throw new EngramError(
      "invalid_argument",
      `cannot listen on ${host}:${port}: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  // Jobs left queued (or orphaned by a process that died) by an earlier run continue here.
  jobs.kick();
  // A damaged file shows in the log and /readyz now, not at the first call that reads the bad
  // page; after listening, so start-up waits for nothing (docs/operations.md#corrupt-or-full-database).
  const checking = new AbortController();
  const checked = checkInBackground(runtime.health, {
    file: describeDatabase(config),
    logger,
    signal: checking.signal,
  });
  const stop = () => void server.shutdown(config.http.shutdown_grace_ms);
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const s of signals) Deno.addSignalListener(s, stop);
  const auth = noAuth
    ? `NO AUTH (anonymous, tier ${tier})`
    : oauth
    ? `bearer tokens and OAuth (issuer ${oauth.issuer})`
    : "bearer tokens";
  logger.info(
    `engram ${VERSION} serving MCP at ${server.url}/mcp (legacy SSE at ${server.url}/sse); auth: ${auth}; database ${
      describeDatabase(config)
    }; config ${configSummary(config.configLocation)}`,
  );
  await server.finished;
  await server.shutdown(config.http.shutdown_grace_ms);
  for (const s of signals) Deno.removeSignalListener(s, stop);
  checking.abort();
  await checked;
  await serving.close();
  logger.info("engram serve stopped");
  return 0;
}

/**
 * engram's own authorization server, with `server.oauth.enabled` (docs/connectors.md): client-ID
 * metadata documents are fetched under URL ingestion's address policy, with no host exempt.
 */
function authorizationFor(
  config: ResolvedConfig,
  runtime: Runtime,
): { server: EngramAuthorizationServer; issuer: string; audience: string } | null {
  const settings = config.http.oauth;
  // The config refuses OAuth without an https (or loopback http) public_url.
  if (!settings.enabled || config.http.public_url === undefined) return null;
  const issuer = config.http.public_url.replace(/\/+$/, "");
  const server = new EngramAuthorizationServer(runtime.authorization, {
    settings: {
      issuer,
      accessTokenTtlMs: settings.access_token_ttl_ms,
      refreshTokenTtlMs: settings.refresh_token_ttl_ms,
      registrationTtlMs: settings.registration_ttl_ms,
    },
    fetchClientMetadata: clientMetadataFetcher((url, o) => fetchUrl(url, { allowHosts: [], ...o })),
  });
  return { server, issuer, audience: `${issuer}/mcp` };
}

/** Runs the quick check of the database and logs what it found (damage at error level). */
async function checkInBackground(
  health: StorageHealth,
  o: { file: string; logger: Logger; signal: AbortSignal },
): Promise<void> {
  try {
    for (const check of await health.check({ level: "quick", signal: o.signal })) {
      if (check.status === "ok") {
        o.logger.debug("database check passed", { check: check.name, file: o.file });
        continue;
      }
      if (check.status === "not_run") {
        o.logger.warn("the database check could not run", {
          check: check.name,
          file: o.file,
          error: check.problems.join("; "),
        });
        continue;
      }
      o.logger.error(
        `database ${o.file} failed ${check.name} (${
          check.problems.join("; ")
        }); ${CORRUPT_DATABASE_FIX}`,
      );
    }
  } catch (err) {
    o.logger.warn("the database check could not run", { file: o.file, error: String(err) });
  }
}

function parsePort(flag: string | undefined, fallback: number): number {
  if (flag === undefined) return fallback;
  const port = Number(flag);
  if (!/^\d+$/.test(flag) || port > 65535) {
    throw new EngramError("invalid_argument", `invalid --port "${flag}"; use 0-65535`);
  }
  return port;
}

function parseTier(flag: string | undefined, noAuth: boolean): Tier {
  if (flag === undefined) return "read";
  if (!noAuth) {
    throw new EngramError(
      "invalid_argument",
      "--tier only applies with --insecure-no-auth; a token carries its own tier (engram tokens create --tier)",
    );
  }
  if (!["read", "write", "admin"].includes(flag)) {
    throw new EngramError(
      "invalid_argument",
      `invalid tier "${flag}"; use one of read, write, admin`,
    );
  }
  return flag as Tier;
}
