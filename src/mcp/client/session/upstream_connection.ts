/**
 * @module One connection to one upstream: the launch verdict first (a blocked server is never
 * started), then the process or HTTP transport, then the SDK Client's initialize with the client
 * capabilities the host can honour. A connection lives until its transport ends; the session
 * (upstream_session.ts) makes a new one to reconnect. Failures say which phase failed (launch,
 * initialize, protocol version) so `doctor` can report each, and name the server and the cause.
 */
import type { McpServerConfig } from "../../../config/mcp_servers.ts";
import { samplingPolicy } from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import {
  ElicitationCompleteNotificationSchema,
  type Implementation,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  type ServerCapabilities,
  ToolListChangedNotificationSchema,
} from "../../sdk.ts";
import { Client } from "../../sdk_client.ts";
import type { FetchLike } from "../transport/capped_fetch.ts";
import type { ConnectionAuthSource } from "../oauth/connection_auth.ts";
import {
  closeHttpTransport,
  type HttpClientTransport,
  httpClientTransport,
} from "../transport/http_transport.ts";
import {
  blockedMessage,
  evaluateLaunch,
  type LaunchCheck,
  type LaunchFacts,
} from "../launch/launch_rules.ts";
import {
  answerNestedRequests,
  clientCapabilities,
  type NestedHost,
} from "../nested/nested_requests.ts";
import { type ProcessEnd, ProcessTransport } from "../transport/process_transport.ts";
import { startStdioServer } from "../launch/stdio_process.ts";
import { AnswerPauses } from "./answer_pauses.ts";
import { errorText } from "./upstream_errors.ts";
import { tailExcerpt } from "../upstream_text.ts";

/** Which step of connecting failed. */
export type ConnectPhase = "launch" | "initialize" | "protocol_version";

/** Connecting failed: the phase, and for a blocked server the rule that blocked it. */
export class UpstreamConnectError extends EngramError {
  /** The step that failed. */
  readonly phase: ConnectPhase;
  /** The failing launch rule, when the server is blocked (nothing was started). */
  readonly blocked: LaunchCheck | null;
  /** What a started stdio server wrote to stderr (its latest bytes; untrusted: escape it). */
  readonly stderr: string;

  constructor(
    code: "forbidden" | "provider_unavailable" | "invalid_argument",
    message: string,
    details: { phase: ConnectPhase; blocked?: LaunchCheck; cause?: unknown; stderr?: string },
  ) {
    super(code, message, { cause: details.cause });
    this.name = "UpstreamConnectError";
    this.phase = details.phase;
    this.blocked = details.blocked ?? null;
    this.stderr = details.stderr ?? "";
  }
}

/** What the upstream said about itself at initialize. */
export interface ServerIdentity {
  protocolVersion: string;
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
}

/** Lists whose `list_changed` notification an upstream may send. */
export type ChangedList = "tools" | "prompts" | "resources";

/** How to open a connection, and where its notifications go. */
export interface ConnectionOptions {
  facts: LaunchFacts;
  maxMessageBytes: number;
  /** Bound on initialize. */
  timeoutMs: number;
  /** Aborts connecting (the session was closed meanwhile). */
  signal?: AbortSignal;
  host: NestedHost;
  clientInfo: Implementation;
  /** Grace between the stop steps of a stdio server. */
  stopGraceMs: number;
  /** How long a person may take to answer one elicitation (`mcp.elicitation_timeout_ms`). */
  elicitationTimeoutMs: number;
  fetch?: FetchLike;
  /** OAuth for the remote servers that require it; none: static headers only. */
  oauth?: ConnectionAuthSource;
  onListChanged(list: ChangedList): void;
  onLog(params: { level: string; logger?: string; data: unknown }): void;
  onElicitationComplete(id: string): void;
  /** The transport ended without close(): the process exited, or stdout ended. */
  onLost(): void;
}

/** An initialized connection. */
export interface UpstreamConnection {
  readonly client: Client;
  readonly transport: ProcessTransport | HttpClientTransport;
  readonly identity: ServerIdentity;
  /** Its requests' timers, paused while a person answers an elicitation. */
  readonly pauses: AnswerPauses;
  /** Whether it is still usable. */
  isOpen(): boolean;
  /**
   * Why the transport ended, as a phrase with `during` set in ("crashed mid-call (exit code 3);
   * stderr: …"); null while open.
   */
  ending(during?: string): Promise<string | null>;
  /** Closes it; a stdio server's whole process group is gone when this resolves. */
  close(): Promise<void>;
}

/** Connects to `server`: verdict, start, initialize. */
export async function openConnection(
  server: McpServerConfig,
  options: ConnectionOptions,
): Promise<UpstreamConnection> {
  const verdict = await evaluateLaunch(server, options.facts);
  if (verdict.blocked) {
    throw new UpstreamConnectError("forbidden", blockedMessage(server.name, verdict.blocked), {
      phase: "launch",
      blocked: verdict.blocked,
    });
  }
  let transport: ProcessTransport | HttpClientTransport;
  if (server.transport === "stdio") {
    try {
      const process = await startStdioServer(server, {
        facts: options.facts,
        verdict,
        graceMs: options.stopGraceMs,
      });
      transport = new ProcessTransport(process, {
        maxMessageBytes: options.maxMessageBytes,
        stopGraceMs: options.stopGraceMs,
      });
    } catch (error) {
      const e = error as EngramError;
      throw new UpstreamConnectError(
        e.code === "forbidden" ? "forbidden" : "provider_unavailable",
        e.message,
        { phase: "launch", cause: error },
      );
    }
  } else {
    transport = httpClientTransport(server, {
      env: options.facts.env,
      maxMessageBytes: options.maxMessageBytes,
      fetch: options.fetch,
      auth: options.oauth?.connectionAuth(server) ?? undefined,
    });
  }
  let protocolVersion = "";
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version: string) => {
    protocolVersion = version;
    setVersion?.(version);
  };

  const host = options.host;
  const nested = { name: server.name, sampling: samplingPolicy(server) };
  const client = new Client(options.clientInfo, { capabilities: clientCapabilities(host, nested) });
  const pauses = new AnswerPauses();
  answerNestedRequests(client, host, nested, {
    whileAsking: (ask) => pauses.whileAsking(ask),
    elicitationTimeoutMs: options.elicitationTimeoutMs,
  });
  // Registered directly (not the SDK's listChanged option): it works whatever the server declared.
  client.setNotificationHandler(
    ToolListChangedNotificationSchema,
    () => options.onListChanged("tools"),
  );
  client.setNotificationHandler(
    PromptListChangedNotificationSchema,
    () => options.onListChanged("prompts"),
  );
  client.setNotificationHandler(
    ResourceListChangedNotificationSchema,
    () => options.onListChanged("resources"),
  );
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => options.onLog(n.params));
  client.setNotificationHandler(
    ElicitationCompleteNotificationSchema,
    (n) => options.onElicitationComplete(n.params.elicitationId),
  );
  // Stray stdout lines and late progress after a cancel are noise, not failures: requests carry
  // their own errors, and the transport keeps count of stray output for messages.
  client.onerror = () => {};

  let closing = false;
  let connected = false;
  let open = true;
  client.onclose = () => {
    open = false;
    if (connected && !closing) options.onLost();
  };
  const ending = async (during?: string): Promise<string | null> => {
    if (open) return null;
    if (!(transport instanceof ProcessTransport)) return "closed its connection";
    return describeEnd(await transport.ended, transport.process.stderrText(), during);
  };

  try {
    await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal });
  } catch (error) {
    closing = true;
    await closeTransport(transport);
    throw await initializeError(server.name, error, {
      timeoutMs: options.timeoutMs,
      ending,
      transport,
    });
  }
  connected = true;
  const identity: ServerIdentity = {
    protocolVersion,
    serverInfo: client.getServerVersion() ?? { name: "(unnamed)", version: "" },
    capabilities: client.getServerCapabilities() ?? {},
    instructions: client.getInstructions(),
  };
  return {
    client,
    transport,
    identity,
    pauses,
    isOpen: () => open,
    ending,
    async close() {
      closing = true;
      open = false;
      await closeTransport(transport);
      await client.close().catch(() => {});
    },
  };
}

async function closeTransport(transport: ProcessTransport | HttpClientTransport) {
  if (transport instanceof ProcessTransport) await transport.close();
  else await closeHttpTransport(transport).catch(() => {});
}

async function initializeError(
  name: string,
  error: unknown,
  context: {
    timeoutMs: number;
    ending: (during?: string) => Promise<string | null>;
    transport: ProcessTransport | HttpClientTransport;
  },
): Promise<UpstreamConnectError> {
  const who = `upstream ${JSON.stringify(name)}`;
  // engram's own OAuth refusals (a login needed, a check failed: src/mcp/client/oauth/, kept as
  // the cause) already name the server and the fix.
  if (error instanceof EngramError && !(context.transport instanceof ProcessTransport)) {
    return new UpstreamConnectError(
      error.code === "forbidden" || error.code === "invalid_argument"
        ? error.code
        : "provider_unavailable",
      error.message,
      { phase: "initialize", cause: error },
    );
  }
  const message = errorText(error);
  if (/protocol version is not supported/i.test(message)) {
    return new UpstreamConnectError(
      "provider_unavailable",
      `${who} speaks an MCP protocol version this engram does not support (${
        tailExcerpt(message.replace(/^.*supported:\s*/i, ""), 40)
      }); update the server or engram`,
      { phase: "protocol_version", cause: error },
    );
  }
  let what: string;
  if (error instanceof McpError && error.code === -32001) {
    what = `did not answer initialize within ${context.timeoutMs} ms`;
  } else if (context.transport instanceof ProcessTransport) {
    what = (await context.ending("during initialize")) ?? "failed during initialize";
    const stray = context.transport.strayOutput();
    if (stray.last) {
      what += `; it wrote ${stray.lines} non-JSON-RPC line(s) to stdout: ${stray.last}`;
    }
  } else {
    what = `could not be initialized: ${tailExcerpt(message, 300)}`;
  }
  return new UpstreamConnectError(
    "provider_unavailable",
    `${who} ${what}; check it with: engram mcp doctor ${name}`,
    {
      phase: "initialize",
      cause: error,
      // Also when it did not answer in time: its stderr often says why (a failed download).
      ...(context.transport instanceof ProcessTransport
        ? { stderr: context.transport.process.stderrText() }
        : {}),
    },
  );
}

/**
 * A stdio transport's ending as a phrase, `during` set in where it fits: "crashed mid-call (exit
 * code 3); stderr: …". The stderr excerpt is neutralised and bounded.
 */
function describeEnd(end: ProcessEnd, stderrText: string, during = ""): string {
  const stderr = tailExcerpt(stderrText);
  const tail = stderr ? `; stderr: ${stderr}` : "";
  const at = during ? ` ${during}` : "";
  if (end.kind === "runaway") {
    return `wrote ${end.bytes} bytes to stdout without a message boundary${at}, so engram stopped it${tail}`;
  }
  if (end.kind === "closed") return `was closed${at}`;
  const { code, signal } = end.exit;
  if (signal) return `was killed by ${signal}${at}${tail}`;
  return `${code === 0 ? "exited" : "crashed"}${at} (exit code ${code})${tail}`;
}
