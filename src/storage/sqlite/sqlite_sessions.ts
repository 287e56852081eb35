/** @module The SessionStore port over SQLite: conversation sessions and their messages. */
import { EngramError } from "../../core/errors.ts";
import type { NewMessage, SessionStore } from "../../core/ports/session_store.ts";
import type { SessionRecord, StoredMessage } from "../../core/types.ts";
import { toMessage, toSession } from "../shared/session_rows.ts";
import type { Prepares } from "./database.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";

/** Sessions over one connection. */
export class SqliteSessionStore implements SessionStore {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  createSession(session: SessionRecord): Promise<SessionRecord> {
    return this.#conn.write(() => createSession(this.#conn, session));
  }

  getSession(id: string): Promise<SessionRecord | null> {
    return this.#conn.read(() => getSession(this.#conn, id));
  }

  updateSession(
    id: string,
    patch: { ended_at?: string; metadata?: Record<string, unknown> },
  ): Promise<SessionRecord> {
    return this.#conn.write(() => updateSession(this.#conn, id, patch));
  }

  appendMessages(sessionId: string, messages: NewMessage[]): Promise<StoredMessage[]> {
    return this.#conn.write(() => appendMessages(this.#conn, sessionId, messages));
  }

  listMessages(
    sessionId: string,
    options?: { afterSeq?: number; last?: number },
  ): Promise<StoredMessage[]> {
    return this.#conn.read(() => listMessages(this.#conn, sessionId, options));
  }

  messageCount(sessionId: string): Promise<number> {
    return this.#conn.read(() => messageCount(this.#conn, sessionId));
  }
}

/** Inserts a session; `conflict` when its id is taken. */
function createSession(db: Prepares, s: SessionRecord): SessionRecord {
  const inserted = db.prepare(
    `INSERT INTO sessions (id, brain_id, client_id, actor_id, started_at, ended_at, metadata)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  ).run(
    s.id,
    s.brain_id,
    s.client_id,
    s.actor_id,
    s.started_at,
    s.ended_at,
    JSON.stringify(s.metadata),
  );
  if (inserted.changes === 0) {
    throw new EngramError(
      "conflict",
      `session "${s.id}" already exists; use another session id or continue that session`,
    );
  }
  return getSession(db, s.id)!;
}

/** A session by id, or null. */
function getSession(db: Prepares, id: string): SessionRecord | null {
  const row = db.prepare("SELECT * FROM sessions WHERE id = ?").get(id);
  return row ? toSession(row) : null;
}

/** Sets `ended_at` and/or replaces `metadata`; `not_found` when the session does not exist. */
function updateSession(
  db: Prepares,
  id: string,
  patch: { ended_at?: string; metadata?: Record<string, unknown> },
): SessionRecord {
  const row = db.prepare(
    `UPDATE sessions SET ended_at = coalesce(?, ended_at), metadata = coalesce(?, metadata)
      WHERE id = ? RETURNING *`,
  ).get(
    patch.ended_at ?? null,
    patch.metadata === undefined ? null : JSON.stringify(patch.metadata),
    id,
  );
  if (!row) throw notFound(id);
  return toSession(row);
}

/**
 * Appends messages in order; the caller runs this in one transaction. Checks everything before
 * the first insert, so a bad request fails as a clean EngramError with nothing written.
 */
function appendMessages(
  db: Prepares,
  sessionId: string,
  messages: Omit<StoredMessage, "seq" | "session_id">[],
): StoredMessage[] {
  if (!db.prepare("SELECT 1 FROM sessions WHERE id = ?").get(sessionId)) throw notFound(sessionId);
  const seen = new Set<string>();
  const taken = db.prepare("SELECT session_id FROM messages WHERE id = ?");
  for (const m of messages) {
    if (seen.has(m.id) || taken.get(m.id)) {
      throw new EngramError(
        "conflict",
        `message "${m.id}" already exists; give every message a new id`,
      );
    }
    seen.add(m.id);
  }
  const insert = db.prepare(
    `INSERT INTO messages (id, session_id, role, content, name, metadata, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  return messages.map((m) => {
    const { lastInsertRowid } = insert.run(
      m.id,
      sessionId,
      m.role,
      m.content,
      m.name ?? null,
      JSON.stringify(m.metadata ?? {}),
      m.created_at,
    );
    const stored: StoredMessage = {
      id: m.id,
      session_id: sessionId,
      role: m.role,
      content: m.content,
      created_at: m.created_at,
      seq: Number(lastInsertRowid),
      metadata: m.metadata ?? {},
    };
    if (m.name !== undefined && m.name !== null) stored.name = m.name;
    return stored;
  });
}

/**
 * A session's messages in ascending `seq`: all, those after `afterSeq`, and of those the last
 * `last` when given.
 */
function listMessages(
  db: Prepares,
  sessionId: string,
  options: { afterSeq?: number; last?: number } = {},
): StoredMessage[] {
  const columns = "rowid AS seq, id, session_id, role, content, name, metadata, created_at";
  const after = options.afterSeq ?? 0;
  if (options.last === undefined) {
    return db.prepare(
      `SELECT ${columns} FROM messages WHERE session_id = ? AND rowid > ? ORDER BY rowid`,
    ).all(sessionId, after).map(toMessage);
  }
  // Newest first to take the last N through the index, then back to conversation order.
  return db.prepare(
    `SELECT ${columns} FROM messages WHERE session_id = ? AND rowid > ? ORDER BY rowid DESC LIMIT ?`,
  ).all(sessionId, after, Math.max(0, options.last)).map(toMessage).reverse();
}

/** Number of messages in a session. */
function messageCount(db: Prepares, sessionId: string): number {
  return (db.prepare("SELECT count(*) AS n FROM messages WHERE session_id = ?").get(sessionId) as {
    n: number;
  }).n;
}

function notFound(id: string): EngramError {
  return new EngramError(
    "not_found",
    `session "${id}" not found; start it first (or check the session id)`,
  );
}
