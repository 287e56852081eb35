/**
 * @module The console's sign-in sessions, kept in this process's memory (docs/console.md#per-node-state):
 * a cookie holds a random secret, the table holds only its SHA-256, the engram token the session
 * was opened with (checked again on every request, so a revoked token ends its sessions at once),
 * and the session's CSRF token. A restart signs everyone out; behind a load balancer a session
 * lives on the node that opened it.
 */
import { randomSecret, sha256Hex } from "../../core/hash.ts";

/** One signed-in browser. */
export interface ConsoleSession {
  /** A public id for the audit log and the page (never the cookie's secret). */
  id: string;
  /** The engram token it was opened with: verified again on each request. */
  token: string;
  clientId: string;
  /** What every write to /console/api/ must carry in `X-Engram-CSRF`. */
  csrf: string;
  createdAt: number;
  lastSeen: number;
}

/** How long a session lasts at most, however busy: 12 hours. */
export const SESSION_MAX_MS = 12 * 60 * 60 * 1000;
/** Sessions kept at most in all; the oldest one goes first. */
const SESSIONS_KEPT = 10_000;

/** The console's session table. */
export class ConsoleSessions {
  readonly #byHash = new Map<string, ConsoleSession>();
  readonly #idleMs: number;
  readonly #perClient: number;
  readonly #now: () => number;

  /** `idleMs`: idle expiry; `perClient`: sessions a client id holds at most (the oldest goes). */
  constructor(o: { idleMs: number; perClient: number; now?: () => number }) {
    this.#idleMs = o.idleMs;
    this.#perClient = o.perClient;
    this.#now = o.now ?? Date.now;
  }

  /** Opens a session; the returned secret goes into the cookie and is never stored. */
  open(o: { token: string; clientId: string }): { secret: string; session: ConsoleSession } {
    const now = this.#now();
    const mine = [...this.#byHash].filter(([, s]) => s.clientId === o.clientId);
    // Oldest first (insertion order): a client over its share loses its oldest session.
    while (mine.length >= this.#perClient) this.#byHash.delete(mine.shift()![0]);
    if (this.#byHash.size >= SESSIONS_KEPT) {
      this.#byHash.delete(this.#byHash.keys().next().value!);
    }
    const secret = randomSecret();
    const session: ConsoleSession = {
      id: `con_${randomSecret().slice(0, 22)}`,
      token: o.token,
      clientId: o.clientId,
      csrf: randomSecret(),
      createdAt: now,
      lastSeen: now,
    };
    this.#byHash.set(sha256Hex(secret), session);
    return { secret, session };
  }

  /** The live session of a cookie secret, its idle clock reset; null when unknown or expired. */
  find(secret: string): ConsoleSession | null {
    const key = sha256Hex(secret);
    const session = this.#byHash.get(key);
    if (!session) return null;
    const now = this.#now();
    if (now - session.lastSeen > this.#idleMs || now - session.createdAt > SESSION_MAX_MS) {
      this.#byHash.delete(key);
      return null;
    }
    session.lastSeen = now;
    return session;
  }

  /**
   * Whether the session of a cookie secret is still live, without resetting its idle clock: an
   * open event stream is no request, so it never keeps a session alive by itself.
   */
  live(secret: string): boolean {
    const session = this.#byHash.get(sha256Hex(secret));
    if (!session) return false;
    const now = this.#now();
    return now - session.lastSeen <= this.#idleMs && now - session.createdAt <= SESSION_MAX_MS;
  }

  /** Ends the session of a cookie secret; false when there was none. */
  close(secret: string): boolean {
    return this.#byHash.delete(sha256Hex(secret));
  }

  /** How many sessions are open (expired ones not yet swept included). */
  get size(): number {
    return this.#byHash.size;
  }
}
