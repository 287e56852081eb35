/**
 * @module The upstream connection manager: one lazily connected, reused session per configured
 * server, kept apart so that a dead, hanging or blocked server never delays the others —
 * discovery runs every server at once, each bounded by its own timeout. Status changes and every
 * upstream request are reported through observer hooks (for `engram mcp servers` and traces).
 */
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  type McpServerConfig,
  serverRequestTimeout,
} from "../../../config/mcp_servers.ts";
import { EngramError, toEngramError } from "../../../core/errors.ts";
import type { Prompt, Resource, ResourceTemplate, Tool } from "../../sdk.ts";
import type { LaunchFacts } from "../launch/launch_rules.ts";
import type { ServerIdentity } from "./upstream_connection.ts";
import {
  type CallRecord,
  type SessionStatus,
  type StatusChange,
  type UpstreamEvent,
  UpstreamSession,
  type UpstreamSessionOptions,
} from "./upstream_session.ts";

/** A traced upstream request, with its server. */
export type CallTrace = CallRecord & { server: string };

/** The manager's options: the session options, with hooks that also name the server. */
export interface UpstreamConnectionsOptions
  extends Omit<UpstreamSessionOptions, "onStatus" | "onEvent" | "onCall" | "facts"> {
  onStatus?(server: string, change: StatusChange): void;
  onEvent?(server: string, event: UpstreamEvent): void;
  onCall?(trace: CallTrace): void;
}

/** What one server offers, or why it could not be asked. */
export interface Discovery {
  server: string;
  ok: boolean;
  identity: ServerIdentity | null;
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  error: EngramError | null;
  elapsed_ms: number;
}

/** Sessions to the configured upstream servers. */
export class UpstreamConnections {
  readonly #servers: Map<string, McpServerConfig>;
  readonly #facts: LaunchFacts;
  readonly #o: UpstreamConnectionsOptions;
  readonly #sessions = new Map<string, UpstreamSession>();
  #closed = false;

  /** `servers` are resolved entries (YAML and imported); `facts` judge their launches. */
  constructor(
    servers: readonly McpServerConfig[],
    facts: LaunchFacts,
    options: UpstreamConnectionsOptions = {},
  ) {
    this.#servers = new Map(servers.map((s) => [s.name, s]));
    this.#facts = facts;
    this.#o = options;
  }

  /** The configured server names, in config order. */
  names(): string[] {
    return [...this.#servers.keys()];
  }

  /** A server's status: `idle` until first used. */
  status(name: string): SessionStatus {
    this.#config(name);
    return this.#sessions.get(name)?.status ?? "idle";
  }

  /**
   * The connected session of `name`, connecting on first use and reusing it after. An unknown
   * name is `not_found`; a server that cannot connect throws its reason (blocked: `forbidden`).
   */
  async session(name: string, options: { timeoutMs?: number } = {}): Promise<UpstreamSession> {
    const session = this.#sessionOf(name);
    await session.connect(options);
    return session;
  }

  /**
   * Connects to each server (default all) at once and lists what it offers. Each server has its
   * own budget of `timeoutMs` (default its request timeout) for connecting and listing, so the
   * whole takes about as long as the slowest server's budget, never the sum.
   */
  async discover(
    names: readonly string[] = this.names(),
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<Discovery[]> {
    for (const name of names) this.#config(name);
    const ceiling = this.#o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return await Promise.all(names.map((name) =>
      this.#discoverOne(
        name,
        options.timeoutMs ?? serverRequestTimeout(this.#config(name), ceiling),
        options.signal,
      )
    ));
  }

  /** Closes every session; no upstream process is left when this resolves. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((s) => s.close()));
  }

  async #discoverOne(name: string, budget: number, signal?: AbortSignal): Promise<Discovery> {
    const started = performance.now();
    const deadline = Date.now() + budget;
    const left = () => Math.max(1, deadline - Date.now());
    const session = this.#sessionOf(name);
    const out: Discovery = {
      server: name,
      ok: false,
      identity: null,
      tools: [],
      resources: [],
      resourceTemplates: [],
      prompts: [],
      error: null,
      elapsed_ms: 0,
    };
    try {
      out.identity = await session.connect({ timeoutMs: left() });
      // Aborting `signal` cancels the listing in flight upstream.
      out.tools = await session.listTools({ timeoutMs: left(), signal });
      out.resources = await session.listResources({ timeoutMs: left(), signal });
      out.resourceTemplates = await session.listResourceTemplates({ timeoutMs: left(), signal });
      out.prompts = await session.listPrompts({ timeoutMs: left(), signal });
      out.ok = true;
    } catch (error) {
      out.error = toEngramError(error);
    }
    out.elapsed_ms = performance.now() - started;
    return out;
  }

  #config(name: string): McpServerConfig {
    const server = this.#servers.get(name);
    if (!server) {
      const known = this.names();
      throw new EngramError(
        "not_found",
        `mcp server ${JSON.stringify(name)} is not configured${
          known.length ? ` (configured: ${known.join(", ")})` : ""
        }; list them with: engram mcp servers`,
      );
    }
    return server;
  }

  #sessionOf(name: string): UpstreamSession {
    const server = this.#config(name);
    if (this.#closed) {
      throw new EngramError("provider_unavailable", "the upstream connections are closed");
    }
    let session = this.#sessions.get(name);
    if (!session) {
      const o = this.#o;
      session = new UpstreamSession(server, {
        ...o,
        facts: this.#facts,
        onStatus: o.onStatus && ((change) => o.onStatus!(name, change)),
        onEvent: o.onEvent && ((event) => o.onEvent!(name, event)),
        onCall: o.onCall && ((record) => o.onCall!({ server: name, ...record })),
      });
      this.#sessions.set(name, session);
    }
    return session;
  }
}
