/** @module The SessionStore port over PostgreSQL: conversation sessions and their messages. */
import { EngramError } from "../../core/errors.ts";
import type { NewMessage, SessionStore } from "../../core/ports/session_store.ts";
import type { SessionRecord, StoredMessage } from "../../core/types.ts";
import { toMessage, toSession } from "../shared/session_rows.ts";
import type { PostgresConnection, Queries } from "./connection.ts";
import { afterFailedStatement, isUniqueViolation } from "./pg_errors.ts";

/** Sessions over one pool. */
export class PostgresSessionStore implements SessionStore {
  readonly #conn: PostgresConnection;

  constructor(conn: PostgresConnection) {
    this.#conn = conn;
  }

  createSession(s: SessionRecord): Promise<SessionRecord> {
    return this.#conn.write(async (sql) => {
      const inserted = await sql`
        INSERT INTO sessions (id, brain_id, client_id, actor_id, started_at, ended_at, metadata)
        VALUES (${s.id}, ${s.brain_id}, ${s.client_id}, ${s.actor_id}, ${s.started_at},
          ${s.ended_at}, ${JSON.stringify(s.metadata)})
        ON CONFLICT (id) DO NOTHING`;
      if (inserted.count === 0) {
        throw new EngramError(
          "conflict",
          `session "${s.id}" already exists; use another session id or continue that session`,
        );
      }
      return (await getSession(sql, s.id))!;
    });
  }

  getSession(id: string): Promise<SessionRecord | null> {
    return this.#conn.read((sql) => getSession(sql, id));
  }

  updateSession(
    id: string,
    patch: { ended_at?: string; metadata?: Record<string, unknown> },
  ): Promise<SessionRecord> {
    return this.#conn.write(async (sql) => {
      const metadata = patch.metadata === undefined ? null : JSON.stringify(patch.metadata);
      const [row] = await sql`
        UPDATE sessions SET ended_at = coalesce(${patch.ended_at ?? null}, ended_at),
                            metadata = coalesce(${metadata}, metadata)
         WHERE id = ${id} RETURNING *`;
      if (!row) throw notFound(id);
      return toSession(row);
    });
  }

  /**
   * Appends in order. The session row is locked first, so appends to one session from several
   * nodes queue and each call's messages get consecutive places after the last call's. Everything
   * is checked before the first insert, so a bad request fails as a clean refusal.
   */
  appendMessages(sessionId: string, messages: NewMessage[]): Promise<StoredMessage[]> {
    return this.#conn.write(async (sql) => {
      const [session] = await sql`SELECT 1 FROM sessions WHERE id = ${sessionId} FOR UPDATE`;
      if (!session) throw notFound(sessionId);
      const ids = messages.map((m) => m.id);
      const taken = ids.length === 0
        ? []
        : await sql`SELECT id FROM messages WHERE id IN ${sql(ids)} LIMIT 1`;
      const dupe = taken[0]?.id ?? ids.find((id, i) => ids.indexOf(id) !== i);
      if (dupe !== undefined) throw messageTaken(dupe);
      if (messages.length === 0) return [];
      const rows = messages.map((m) => ({
        id: m.id,
        session_id: sessionId,
        role: m.role,
        content: m.content,
        name: m.name ?? null,
        metadata: JSON.stringify(m.metadata ?? {}),
        created_at: m.created_at,
      }));
      const inserted = await sql`
        INSERT INTO messages ${
        sql(rows, "id", "session_id", "role", "content", "name", "metadata", "created_at")
      } RETURNING id, seq`.catch((err) => {
        throw isUniqueViolation(err) ? afterFailedStatement(messageTaken(ids[0], err)) : err;
      });
      const seqs = new Map(inserted.map((r) => [r.id as string, r.seq as number]));
      return messages.map((m) => {
        const stored: StoredMessage = {
          id: m.id,
          session_id: sessionId,
          role: m.role,
          content: m.content,
          created_at: m.created_at,
          seq: seqs.get(m.id)!,
          metadata: m.metadata ?? {},
        };
        if (m.name !== undefined && m.name !== null) stored.name = m.name;
        return stored;
      });
    });
  }

  listMessages(
    sessionId: string,
    options: { afterSeq?: number; last?: number } = {},
  ): Promise<StoredMessage[]> {
    return this.#conn.read(async (sql) => {
      const after = options.afterSeq ?? 0;
      if (options.last === undefined) {
        return (await sql`
          SELECT * FROM messages WHERE session_id = ${sessionId} AND seq > ${after}
           ORDER BY seq`).map(toMessage);
      }
      // Newest first to take the last N through the index, then back to conversation order.
      return (await sql`
        SELECT * FROM messages WHERE session_id = ${sessionId} AND seq > ${after}
         ORDER BY seq DESC LIMIT ${Math.max(0, options.last)}`).map(toMessage).reverse();
    });
  }

  messageCount(sessionId: string): Promise<number> {
    return this.#conn.read(async (sql) => {
      const [{ n }] = await sql<{ n: number }[]>`
        SELECT count(*) AS n FROM messages WHERE session_id = ${sessionId}`;
      return n;
    });
  }
}

async function getSession(sql: Queries, id: string): Promise<SessionRecord | null> {
  const [row] = await sql`SELECT * FROM sessions WHERE id = ${id}`;
  return row ? toSession(row) : null;
}

function messageTaken(id: string, cause?: unknown): EngramError {
  return new EngramError(
    "conflict",
    `message "${id}" already exists; give every message a new id`,
    cause === undefined ? undefined : { cause },
  );
}

function notFound(id: string): EngramError {
  return new EngramError(
    "not_found",
    `session "${id}" not found; start it first (or check the session id)`,
  );
}
