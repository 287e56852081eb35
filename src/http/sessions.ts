/** @module The live MCP sessions of an HTTP server: who owns each, when it was last used, closing them. */
import type { Transport } from "../mcp/sdk.ts";
import type { SessionServer } from "../mcp/server/session/session_server.ts";

/** One live session: its MCP server, its transport and the client that opened it. */
export interface HttpSession {
  id: string;
  kind: "streamable" | "sse";
  clientId: string;
  server: SessionServer;
  transport: Transport;
  /** The protocol revision settled at initialize (until then, the pinned one). */
  protocolVersion: string;
  lastSeen: number;
}

/** Session ids: 256 random bits, base64url (visible ASCII, unguessable). */
export function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Lookup result for a presented session id. */
export type SessionLookup =
  | { ok: true; session: HttpSession }
  | { ok: false; reason: "unknown" | "foreign" };

/** The session table, with per-client counts and idle expiry. */
export class SessionRegistry {
  #sessions = new Map<string, HttpSession>();
  #idleMs: number;
  #now: () => number;

  #onClosed?: (session: HttpSession) => void;

  constructor(
    options: { idleMs: number; now?: () => number; onClosed?: (session: HttpSession) => void },
  ) {
    this.#idleMs = options.idleMs;
    this.#now = options.now ?? Date.now;
    this.#onClosed = options.onClosed;
  }

  /** The current time on the registry's clock. */
  now(): number {
    return this.#now();
  }

  /** Adds a session; `forget` removes it when its server closes. */
  add(session: HttpSession): void {
    this.#sessions.set(session.id, session);
  }

  /** Removes a closed session (its server's onClose). */
  forget(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    this.#onClosed?.(session);
  }

  /** Finds `id` for `clientId`, touching it; an expired session is closed and reported unknown. */
  lookup(id: string, clientId: string, kind: HttpSession["kind"]): SessionLookup {
    this.sweep();
    const session = this.#sessions.get(id);
    if (!session || session.kind !== kind) return { ok: false, reason: "unknown" };
    if (session.clientId !== clientId) return { ok: false, reason: "foreign" };
    session.lastSeen = this.#now();
    return { ok: true, session };
  }

  /** How many live sessions `clientId` holds. */
  countFor(clientId: string): number {
    this.sweep();
    let n = 0;
    for (const s of this.#sessions.values()) if (s.clientId === clientId) n++;
    return n;
  }

  /** Number of live sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Closes sessions idle for longer than the limit. Legacy SSE sessions live as long as their stream. */
  sweep(): void {
    const cutoff = this.#now() - this.#idleMs;
    for (const s of [...this.#sessions.values()]) {
      // An open GET stream is a client listening for notifications: in use, however quiet.
      const listening = (s.transport as { listening?: boolean }).listening === true;
      if (s.kind === "streamable" && s.lastSeen < cutoff && !listening) void this.close(s.id);
    }
  }

  /** Closes one session (its streams end, its server shuts down). */
  async close(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) return;
    await session.server.close().catch(() => {});
    this.forget(id);
  }

  /**
   * At shutdown: ends every Streamable HTTP GET stream (it only carries notifications) and every
   * legacy SSE stream as soon as no request on it awaits a reply.
   */
  endIdleStreams(): void {
    for (const s of this.#sessions.values()) {
      const t = s.transport as { closeGetStream?: () => void; drain?: () => void };
      if (s.kind === "streamable") t.closeGetStream?.();
      else t.drain?.();
    }
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.close(id)));
  }
}
