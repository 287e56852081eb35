/**
 * @module `engram mcp doctor`'s live checks: for each server, a fresh connection that is launched,
 * initialized, asked its protocol version and capabilities, and timed on one listing round trip.
 * Each check is PASS or FAIL with a one-line fix (SKIP when an earlier one failed). All servers
 * run at once, each within its own timeout, so a sick server never holds up the report on the
 * healthy ones: the whole takes about one timeout, however many servers are dead. A stdio server
 * that does not start shows the end of its stderr (escaped) and, when recognised, the common cause
 * and its fix (start_failure.ts); a remote server that failed for OAuth's sake — it needs a login,
 * or its authorization server fails a check of engram's — says so with that fix (doctor_auth.ts).
 */
import type { McpServerConfig } from "../../../config/mcp_servers.ts";
import { type EngramError, toEngramError } from "../../../core/errors.ts";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "../../sdk.ts";
import type { LaunchFacts } from "../launch/launch_rules.ts";
import type { NestedHost } from "../nested/nested_requests.ts";
import type { ConnectionAuthSource } from "../oauth/connection_auth.ts";
import {
  type ConnectPhase,
  type ServerIdentity,
  UpstreamConnectError,
} from "../session/upstream_connection.ts";
import { UpstreamSession } from "../session/upstream_session.ts";
import { oauthConnectFailure } from "./doctor_auth.ts";
import { recogniseStartFailure, stderrTail } from "./start_failure.ts";

/** The live checks, in order. */
const LIVE_CHECKS = [
  "launch",
  "initialize",
  "protocol_version",
  "capabilities",
  "latency",
] as const;
/** One of the live checks. */
export type LiveCheckName = (typeof LIVE_CHECKS)[number];

/** One check's outcome. */
export interface LiveCheck {
  check: LiveCheckName;
  status: "pass" | "fail" | "skip";
  detail: string;
  /** What to do about a failure; empty when it passed. */
  fix: string;
  /** A stdio server that failed to start: the last lines of its stderr, escaped; else absent. */
  stderr?: string[];
  /**
   * A remote server that failed for OAuth's sake: `needs_login` (someone must run the login) or
   * `refused` (its authorization server fails one of engram's checks); else absent.
   */
  oauth?: "needs_login" | "refused";
}

/** One server's live report. */
export interface LiveReport {
  server: string;
  ok: boolean;
  checks: LiveCheck[];
  elapsed_ms: number;
}

/** Options of liveDoctor. */
export interface LiveDoctorOptions {
  facts: LaunchFacts;
  /** Each server's whole budget (launch to latency); default 10 s. */
  timeoutMs?: number;
  maxResultBytes?: number;
  /** Nested requests a server may make while being checked; default none. */
  host?: NestedHost;
  /** Aborting it cancels what is in flight upstream and stops every server being checked. */
  signal?: AbortSignal;
  /** OAuth for the remote servers that require it (the kept tokens); none: headers only. */
  oauth?: ConnectionAuthSource;
}

/** Runs the live checks on every server at once. */
export async function liveDoctor(
  servers: readonly McpServerConfig[],
  options: LiveDoctorOptions,
): Promise<LiveReport[]> {
  return await Promise.all(servers.map((server) => checkServer(server, options)));
}

async function checkServer(
  server: McpServerConfig,
  options: LiveDoctorOptions,
): Promise<LiveReport> {
  const started = performance.now();
  const budget = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + budget;
  const left = () => Math.max(1, deadline - Date.now());
  const session = new UpstreamSession(server, {
    facts: options.facts,
    maxResultBytes: options.maxResultBytes,
    requestTimeoutMs: budget,
    host: options.host,
    ...(options.oauth ? { oauth: options.oauth } : {}),
    backoff: { attempts: 0 },
    // A server that could not answer in time is not waited on to exit politely.
    stopGraceMs: 100,
  });
  const checks: LiveCheck[] = [];
  const doctor = `engram mcp doctor ${server.name}`;
  // A microtask later: the request in flight sends its cancellation first (same abort).
  const stop = () => queueMicrotask(() => void session.close());
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    const connectStart = performance.now();
    let identity: ServerIdentity;
    try {
      identity = await session.connect({ timeoutMs: left() });
    } catch (error) {
      checks.push(...connectFailure(toEngramError(error), server, doctor));
      return report(server, checks, started);
    }
    const initMs = performance.now() - connectStart;
    checks.push(
      pass("launch", launched(server)),
      pass(
        "initialize",
        `initialized in ${ms(initMs)}: ${identity.serverInfo.name} ${identity.serverInfo.version}`
          .trim(),
      ),
      versionCheck(identity.protocolVersion),
      capabilityCheck(identity),
    );
    checks.push(
      await latencyCheck(session, identity, { timeoutMs: left(), signal: options.signal }),
    );
  } finally {
    options.signal?.removeEventListener("abort", stop);
    await session.close();
  }
  return report(server, checks, started);
}

function connectFailure(error: EngramError, server: McpServerConfig, doctor: string): LiveCheck[] {
  const phase: ConnectPhase = error instanceof UpstreamConnectError ? error.phase : "initialize";
  const at = LIVE_CHECKS.indexOf(phase);
  const checks: LiveCheck[] = LIVE_CHECKS.slice(0, at).map((check) =>
    pass(check, check === "launch" ? launched(server) : "answered, with a version engram refuses")
  );
  const stderr = error instanceof UpstreamConnectError ? error.stderr : "";
  const oauth = phase === "initialize" && server.transport !== "stdio"
    ? oauthConnectFailure(error, server.name)
    : null;
  if (oauth) {
    checks.push({
      check: phase,
      status: "fail",
      detail: oauth.detail,
      fix: oauth.fix,
      oauth: oauth.kind,
    });
    return [...checks, ...skipped(at, phase)];
  }
  const cause = phase === "initialize" ? recogniseStartFailure(stderr, server) : null;
  const tail = server.transport === "stdio" && phase === "initialize" ? stderrTail(stderr) : [];
  const fix = error instanceof UpstreamConnectError && error.blocked
    ? error.blocked.fix
    : phase === "launch"
    ? `check the command and its permissions: ${doctor}`
    : phase === "protocol_version"
    ? "update the server (or engram) to a common protocol version"
    : cause
    ? cause.fix
    : server.transport === "stdio"
    ? `run the server's command by hand to see why it does not answer initialize; ${
      tail.length ? "the end of its stderr is below" : "it wrote nothing to stderr"
    }`
    : `check the URL and that the server is up: ${server.url}`;
  checks.push({
    check: phase,
    status: "fail",
    detail: cause ? `${error.message}; ${cause.detail}` : error.message,
    fix,
    ...(tail.length ? { stderr: tail } : {}),
  });
  return [...checks, ...skipped(at, phase)];
}

/** The checks after the one at `at`, skipped because `phase` failed. */
function skipped(at: number, phase: ConnectPhase): LiveCheck[] {
  return LIVE_CHECKS.slice(at + 1).map((check) => ({
    check,
    status: "skip",
    detail: `not checked: ${phase} failed`,
    fix: "",
  }));
}

function launched(server: McpServerConfig): string {
  return server.transport === "stdio"
    ? `started under the launch rules (${server.sandbox_profile} profile)`
    : `launch rules pass; ${server.transport} endpoint ${server.url}`;
}

function versionCheck(version: string): LiveCheck {
  if (version === LATEST_PROTOCOL_VERSION) return pass("protocol_version", `${version} (latest)`);
  if (SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return pass(
      "protocol_version",
      `${version} (older than ${LATEST_PROTOCOL_VERSION}, supported)`,
    );
  }
  return fail("protocol_version", `${version || "none"} is not supported`, "update the server");
}

function capabilityCheck(identity: ServerIdentity): LiveCheck {
  const c = identity.capabilities;
  const offered = (["tools", "resources", "prompts"] as const).filter((k) => c[k]);
  const extra = (["logging", "completions"] as const).filter((k) => c[k]);
  if (offered.length === 0) {
    return fail(
      "capabilities",
      "declares no tools, resources or prompts",
      "nothing to use; check the server's documentation or remove it",
    );
  }
  const changed = offered.filter((k) => (c[k] as { listChanged?: boolean }).listChanged);
  return pass(
    "capabilities",
    [...offered, ...extra].join(", ") +
      (changed.length ? ` (list_changed: ${changed.join(", ")})` : ""),
  );
}

async function latencyCheck(
  session: UpstreamSession,
  identity: ServerIdentity,
  call: { timeoutMs: number; signal?: AbortSignal },
): Promise<LiveCheck> {
  const c = identity.capabilities;
  const started = performance.now();
  try {
    let what: string;
    if (c.tools) what = `tools/list (${(await session.listTools(call)).length} tools)`;
    else if (c.resources) {
      what = `resources/list (${(await session.listResources(call)).length} resources)`;
    } else if (c.prompts) {
      what = `prompts/list (${(await session.listPrompts(call)).length} prompts)`;
    } else {
      await session.ping(call);
      what = "ping";
    }
    return pass("latency", `${what} answered in ${ms(performance.now() - started)}`);
  } catch (error) {
    return fail(
      "latency",
      toEngramError(error).message,
      "the server is slow or stuck; check its logs",
    );
  }
}

function report(server: McpServerConfig, checks: LiveCheck[], started: number): LiveReport {
  return {
    server: server.name,
    ok: checks.every((c) => c.status === "pass"),
    checks,
    elapsed_ms: performance.now() - started,
  };
}

function pass(check: LiveCheckName, detail: string): LiveCheck {
  return { check, status: "pass", detail, fix: "" };
}

function fail(check: LiveCheckName, detail: string, fix: string): LiveCheck {
  return { check, status: "fail", detail, fix };
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
}
