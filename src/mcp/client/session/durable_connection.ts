/**
 * @module The durable part of an upstream session: at most one live connection, made on first use
 * and remade when lost — in the background with backoff (1 s doubling to 60 s, 8 attempts), after
 * which the server is `down` until the next explicit use, which tries again at once. A blocked
 * server is never started and never retried. Status changes go to `onStatus`.
 */
import {
  DEFAULT_ELICITATION_TIMEOUT_MS,
  DEFAULT_MAX_RESULT_BYTES,
  type McpServerConfig,
} from "../../../config/mcp_servers.ts";
import { EngramError, toEngramError } from "../../../core/errors.ts";
import { VERSION } from "../../../version.ts";
import type { Implementation } from "../../sdk.ts";
import type { FetchLike } from "../transport/capped_fetch.ts";
import type { ConnectionAuthSource } from "../oauth/connection_auth.ts";
import type { LaunchFacts } from "../launch/launch_rules.ts";
import type { NestedHost } from "../nested/nested_requests.ts";
import { abortableSleep, backoffDelays, type BackoffOptions } from "./reconnect_backoff.ts";
import {
  type ChangedList,
  openConnection,
  type ServerIdentity,
  UpstreamConnectError,
  type UpstreamConnection,
} from "./upstream_connection.ts";

/** Where a session stands. */
export type SessionStatus = "idle" | "ready" | "reconnecting" | "down" | "blocked" | "closed";

/** A status change, for `engram mcp servers` and traces. */
export interface StatusChange {
  status: SessionStatus;
  error: EngramError | null;
  at: Date;
}

/** A notification the upstream sent that the embedding layer may act on. */
export type UpstreamEvent = { kind: "list_changed"; list: ChangedList };

/** How connections are made and remade. */
export interface DurableOptions {
  facts: LaunchFacts;
  maxResultBytes?: number;
  /** Bound on launch + initialize. */
  connectTimeoutMs: number;
  host?: NestedHost;
  backoff?: BackoffOptions;
  stopGraceMs?: number;
  /** `mcp.elicitation_timeout_ms`; default 10 minutes. */
  elicitationTimeoutMs?: number;
  clientInfo?: Implementation;
  fetch?: FetchLike;
  /** OAuth for the remote servers that require it. */
  oauth?: ConnectionAuthSource;
  onStatus?(change: StatusChange): void;
  onEvent?(event: UpstreamEvent): void;
  onElicitationComplete(id: string): void;
}

const CLIENT_INFO: Implementation = { name: "engram", version: VERSION };

/** One upstream's connection over time. */
export class DurableConnection {
  readonly #server: McpServerConfig;
  readonly #o: DurableOptions;
  #conn: UpstreamConnection | null = null;
  #connecting: Promise<UpstreamConnection> | null = null;
  #connectAbort: AbortController | null = null;
  #reconnect: AbortController | null = null;
  #status: SessionStatus = "idle";
  #lastError: EngramError | null = null;
  #identity: ServerIdentity | null = null;
  #closed = false;

  constructor(server: McpServerConfig, options: DurableOptions) {
    this.#server = server;
    this.#o = options;
  }

  /** Where it stands. */
  get status(): SessionStatus {
    return this.#status;
  }

  /** Why the last connect failed or the connection was lost; null when ready. */
  get lastError(): EngramError | null {
    return this.#lastError;
  }

  /** What the upstream said at the last initialize; null before the first. */
  identity(): ServerIdentity | null {
    return this.#identity;
  }

  /** The live connection, connecting first if there is none (an explicit use). */
  ensure(timeoutMs?: number): Promise<UpstreamConnection> {
    if (this.#closed) return Promise.reject(this.#closedError());
    const conn = this.#conn;
    if (conn?.isOpen()) return Promise.resolve(conn);
    if (conn) this.lost(conn);
    return (this.#connecting ??= this.#attempt(timeoutMs ?? this.#o.connectTimeoutMs));
  }

  /** `conn` was found lost: drop it and start reconnecting in the background. */
  lost(conn: UpstreamConnection): void {
    if (this.#conn !== conn) return;
    this.#conn = null;
    void conn.close();
    if (this.#closed || this.#reconnect) return;
    const controller = new AbortController();
    this.#reconnect = controller;
    void this.#reconnectLoop(conn, controller);
  }

  /** Stops reconnecting and closes the connection (its process is gone when this resolves). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#reconnect?.abort();
    this.#reconnect = null;
    this.#connectAbort?.abort("the session was closed");
    const conn = this.#conn;
    this.#conn = null;
    await Promise.all([conn?.close(), this.#connecting?.catch(() => {})]);
    // A server that never came up (blocked, down, never asked) keeps that as its last known
    // status for `engram mcp servers`; "closed" is news only for a connection that was open.
    if (this.#status === "ready" || this.#status === "reconnecting") {
      this.#setStatus("closed", null);
    } else this.#status = "closed";
  }

  async #attempt(timeoutMs: number): Promise<UpstreamConnection> {
    const abort = new AbortController();
    this.#connectAbort = abort;
    try {
      const holder: { conn?: UpstreamConnection } = {};
      const conn = await openConnection(this.#server, {
        facts: this.#o.facts,
        maxMessageBytes: this.#o.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
        timeoutMs,
        signal: abort.signal,
        host: this.#o.host ?? {},
        clientInfo: this.#o.clientInfo ?? CLIENT_INFO,
        stopGraceMs: this.#o.stopGraceMs ?? 500,
        elicitationTimeoutMs: this.#o.elicitationTimeoutMs ?? DEFAULT_ELICITATION_TIMEOUT_MS,
        fetch: this.#o.fetch,
        oauth: this.#o.oauth,
        onListChanged: (list) => this.#o.onEvent?.({ kind: "list_changed", list }),
        // Nothing shows an upstream's log messages yet; they are received and dropped.
        onLog: () => {},
        onElicitationComplete: (id) => this.#o.onElicitationComplete(id),
        onLost: () => holder.conn && this.lost(holder.conn),
      });
      holder.conn = conn;
      if (this.#closed) {
        await conn.close();
        throw this.#closedError();
      }
      this.#conn = conn;
      this.#identity = conn.identity;
      this.#lastError = null;
      this.#reconnect?.abort();
      this.#reconnect = null;
      this.#setStatus("ready", null);
      return conn;
    } catch (error) {
      const failure = toEngramError(error);
      if (!this.#closed) {
        this.#lastError = failure;
        const blocked = failure instanceof UpstreamConnectError && failure.blocked !== null;
        if (blocked) this.#setStatus("blocked", failure);
        else if (!this.#reconnect) this.#setStatus("down", failure);
      }
      throw failure;
    } finally {
      this.#connecting = null;
      if (this.#connectAbort === abort) this.#connectAbort = null;
    }
  }

  async #reconnectLoop(lost: UpstreamConnection, controller: AbortController): Promise<void> {
    const ending = await lost.ending();
    const error = new EngramError(
      "provider_unavailable",
      `upstream ${JSON.stringify(this.#server.name)} ${ending ?? "went away"}; reconnecting`,
    );
    // An explicit use may have reconnected while the lost process was being stopped.
    if (controller.signal.aborted) return;
    this.#lastError = error;
    this.#setStatus("reconnecting", error);
    const sleep = this.#o.backoff?.sleep ?? abortableSleep;
    for (const delay of backoffDelays(this.#o.backoff)) {
      await sleep(delay, controller.signal);
      if (controller.signal.aborted || this.#conn?.isOpen()) return;
      try {
        await (this.#connecting ??= this.#attempt(this.#o.connectTimeoutMs));
        return;
      } catch {
        if (this.#status === "blocked" || controller.signal.aborted) break;
      }
    }
    if (this.#reconnect !== controller) return;
    this.#reconnect = null;
    if (this.#status !== "blocked") this.#setStatus("down", this.#lastError ?? error);
  }

  #setStatus(status: SessionStatus, error: EngramError | null) {
    this.#status = status;
    this.#o.onStatus?.({ status, error, at: new Date() });
  }

  #closedError(): EngramError {
    return new EngramError(
      "provider_unavailable",
      `the session to upstream ${JSON.stringify(this.#server.name)} is closed`,
    );
  }
}
