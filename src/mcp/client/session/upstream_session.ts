/**
 * @module One durable, initialized session per upstream server, reused across operations
 * (docs/upstream.md#transports-and-sessions). It connects on first use, answers nested requests,
 * surfaces list_changed notifications, bounds every request by a timeout (a timed-out or
 * cancelled request is cancelled upstream), and when a live connection is lost it reconnects with
 * backoff (1 s doubling to 60 s, 8 attempts), after which the server is `down` until it is used
 * again. Every request is reported to `onCall` (for traces); every failure is an EngramError.
 */
import {
  DEFAULT_ELICITATION_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type McpServerConfig,
  serverRequestTimeout,
} from "../../../config/mcp_servers.ts";
import { EngramError, toEngramError } from "../../../core/errors.ts";
import {
  type CallToolResult,
  CallToolResultSchema,
  EmptyResultSchema,
  type GetPromptResult,
  GetPromptResultSchema,
  type Implementation,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  McpError,
  type Prompt,
  type ReadResourceResult,
  ReadResourceResultSchema,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from "../../sdk.ts";
import type { FetchLike } from "../transport/capped_fetch.ts";
import type { ConnectionAuthSource } from "../oauth/connection_auth.ts";
import type { LaunchFacts } from "../launch/launch_rules.ts";
import type { NestedHost } from "../nested/nested_requests.ts";
import type { BackoffOptions } from "./reconnect_backoff.ts";
import type { ServerIdentity } from "./upstream_connection.ts";
import {
  type CallOptions,
  type CallRecord,
  callRecord,
  isSessionGone,
  type OutgoingCall,
  type RequestSpec,
  type ResultSchema,
  sendRequest,
} from "./upstream_request.ts";
import { ElicitationCompletions, resolveUrlElicitations } from "../nested/url_elicitation.ts";
import {
  DurableConnection,
  type SessionStatus,
  type StatusChange,
  type UpstreamEvent,
} from "./durable_connection.ts";

export type { CallKind, CallOptions, CallRecord } from "./upstream_request.ts";

export type { SessionStatus, StatusChange, UpstreamEvent } from "./durable_connection.ts";

/** How a session behaves. */
export interface UpstreamSessionOptions {
  facts: LaunchFacts;
  /** `mcp.max_result_bytes`; default 10 MiB. */
  maxResultBytes?: number;
  /** `mcp.request_timeout_ms` (a server's own is kept below it); default 30 s. */
  requestTimeoutMs?: number;
  /** Bound on launch + initialize; default the request timeout. */
  connectTimeoutMs?: number;
  /** What nested requests can be answered with; default none (all declined). */
  host?: NestedHost;
  backoff?: BackoffOptions;
  /** Grace between a stdio server's stop steps; default 500 ms. */
  stopGraceMs?: number;
  /**
   * `mcp.elicitation_timeout_ms`: how long a person may take to answer an elicitation, during
   * which request timers stand still; default 10 minutes.
   */
  elicitationTimeoutMs?: number;
  /** How long to wait for a URL elicitation to be completed; default `elicitationTimeoutMs`. */
  elicitationWaitMs?: number;
  clientInfo?: Implementation;
  fetch?: FetchLike;
  /** OAuth for the remote servers that require it (docs/upstream.md#oauth-upstreams). */
  oauth?: ConnectionAuthSource;
  onStatus?(change: StatusChange): void;
  onEvent?(event: UpstreamEvent): void;
  onCall?(record: CallRecord): void;
}

const MAX_PAGES = 100;

/** A durable session to one upstream server. */
export class UpstreamSession {
  /** The server's config entry. */
  readonly server: McpServerConfig;
  readonly #o: UpstreamSessionOptions;
  readonly #timeoutMs: number;
  readonly #completions = new ElicitationCompletions();
  readonly #link: DurableConnection;

  constructor(server: McpServerConfig, options: UpstreamSessionOptions) {
    this.server = server;
    this.#o = options;
    this.#timeoutMs = serverRequestTimeout(
      server,
      options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    );
    this.#link = new DurableConnection(server, {
      ...options,
      connectTimeoutMs: options.connectTimeoutMs ?? this.#timeoutMs,
      onElicitationComplete: (id) => this.#completions.complete(id),
    });
  }

  /** The server's name. */
  get name(): string {
    return this.server.name;
  }

  /** Where the session stands. */
  get status(): SessionStatus {
    return this.#link.status;
  }

  /** Why the last connect failed or the connection was lost; null when ready. */
  get lastError(): EngramError | null {
    return this.#link.lastError;
  }

  /** What the upstream said at the last initialize; null before the first. */
  identity(): ServerIdentity | null {
    return this.#link.identity();
  }

  /** Connects unless connected (an explicit use: it also revives a `down` server). */
  async connect(options: { timeoutMs?: number } = {}): Promise<ServerIdentity> {
    return (await this.#link.ensure(options.timeoutMs)).identity;
  }

  /** Every tool (all pages); none when the server declared no tools. */
  async listTools(options: CallOptions = {}): Promise<Tool[]> {
    if (!(await this.connect()).capabilities.tools) return [];
    return await this.#listAll({
      method: "tools/list",
      key: "tools",
      schema: ListToolsResultSchema,
    }, options);
  }

  /** Every resource; none when the server declared no resources. */
  async listResources(options: CallOptions = {}): Promise<Resource[]> {
    if (!(await this.connect()).capabilities.resources) return [];
    return await this.#listAll({
      method: "resources/list",
      key: "resources",
      schema: ListResourcesResultSchema,
    }, options);
  }

  /** Every resource template; none when the server declared no resources. */
  async listResourceTemplates(options: CallOptions = {}): Promise<ResourceTemplate[]> {
    if (!(await this.connect()).capabilities.resources) return [];
    return await this.#listAll({
      method: "resources/templates/list",
      key: "resourceTemplates",
      schema: ListResourceTemplatesResultSchema,
    }, options);
  }

  /** Every prompt; none when the server declared no prompts. */
  async listPrompts(options: CallOptions = {}): Promise<Prompt[]> {
    if (!(await this.connect()).capabilities.prompts) return [];
    return await this.#listAll({
      method: "prompts/list",
      key: "prompts",
      schema: ListPromptsResultSchema,
    }, options);
  }

  /**
   * Calls a tool through `tools/call` itself, not the SDK's callTool: the result is returned as
   * the upstream sent it (callTool would reject structuredContent that fails a cached schema).
   * A -32042 "URL elicitation required" is shown to the user and the call retried once.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const spec: RequestSpec = {
      kind: "tool",
      capability: name,
      method: "tools/call",
      params: { name, arguments: args },
      what: `tools/call ${JSON.stringify(name)}`,
      schema: CallToolResultSchema,
    };
    try {
      return await this.#request<CallToolResult>(spec, options);
    } catch (error) {
      const cause = (error as EngramError).cause;
      if (!(cause instanceof McpError) || cause.code !== -32042) throw error;
      const data = cause.data as { elicitations?: unknown } | undefined;
      const elicitations = Array.isArray(data?.elicitations) ? data.elicitations : [];
      await resolveUrlElicitations(elicitations, {
        server: this.name,
        what: spec.what,
        elicit: this.#o.host?.elicit,
        completions: this.#completions,
        waitMs: this.#o.elicitationWaitMs ?? this.#o.elicitationTimeoutMs ??
          DEFAULT_ELICITATION_TIMEOUT_MS,
        signal: options.signal,
      });
      return await this.#request<CallToolResult>(spec, options);
    }
  }

  /** Reads one resource. */
  async readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return await this.#request(
      {
        kind: "resource",
        capability: uri,
        method: "resources/read",
        params: { uri },
        what: `resources/read ${JSON.stringify(uri)}`,
        schema: ReadResourceResultSchema,
      },
      options,
    );
  }

  /** Gets one prompt with its arguments. */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return await this.#request(
      {
        kind: "prompt",
        capability: name,
        method: "prompts/get",
        params: { name, arguments: args },
        what: `prompts/get ${JSON.stringify(name)}`,
        schema: GetPromptResultSchema,
      },
      options,
    );
  }

  /** One `ping` round trip. */
  async ping(options: CallOptions = {}): Promise<void> {
    await this.#request(
      { kind: "list", capability: "ping", method: "ping", what: "ping", schema: EmptyResultSchema },
      options,
    );
  }

  /** Ends the session for good: stops reconnecting, closes the connection, stops its process. */
  async close(): Promise<void> {
    await this.#link.close();
  }

  async #listAll<T>(
    list: { method: string; key: string; schema: ResultSchema },
    options: CallOptions,
  ): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.#request<Record<string, T[]> & { nextCursor?: string }>({
        kind: "list",
        capability: list.method,
        method: list.method,
        params: cursor === undefined ? undefined : { cursor },
        what: list.method,
        schema: list.schema,
      }, options);
      items.push(...result[list.key]);
      cursor = result.nextCursor;
      if (cursor === undefined || seen.has(cursor)) break;
      seen.add(cursor);
    }
    return items;
  }

  async #request<T>(spec: RequestSpec, options: CallOptions): Promise<T> {
    const call: OutgoingCall = {
      spec,
      options,
      server: this.name,
      timeoutMs: options.timeoutMs ?? this.#timeoutMs,
      onLost: (conn) => this.#link.lost(conn),
      started: performance.now(),
      result: undefined,
      aborted: null,
    };
    let failure: EngramError | null = null;
    try {
      let conn = await this.#link.ensure();
      try {
        await sendRequest(conn, call);
      } catch (error) {
        // A Streamable HTTP session the server forgot (404): the spec says start a new one.
        if (!isSessionGone(error)) throw error;
        this.#link.lost(conn);
        conn = await this.#link.ensure();
        await sendRequest(conn, call);
      }
      return call.result as T;
    } catch (error) {
      failure = toEngramError(error);
      throw failure;
    } finally {
      this.#o.onCall?.(callRecord(call, failure));
    }
  }
}
