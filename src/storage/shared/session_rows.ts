/**
 * @module Row → record mapping for the `sessions` and `messages` tables, shared by the SQLite and
 * PostgreSQL adapters: the columns and their meaning are the same on both; only the SQL differs.
 */
import type { SessionMessageRecord, SessionRecord, StoredMessage } from "../../core/types.ts";

/** A `sessions` row as a record (metadata parsed from its JSON text). */
export function toSession(r: Record<string, unknown>): SessionRecord {
  return {
    id: r.id as string,
    brain_id: r.brain_id as string,
    client_id: (r.client_id as string | null) ?? null,
    actor_id: (r.actor_id as string | null) ?? null,
    started_at: r.started_at as string,
    ended_at: (r.ended_at as string | null) ?? null,
    metadata: JSON.parse(r.metadata as string),
  };
}

/** A `messages` row as a stored message (metadata parsed from its JSON text). */
export function toMessage(r: Record<string, unknown>): StoredMessage {
  const m: StoredMessage = {
    id: r.id as string,
    session_id: r.session_id as string,
    role: r.role as SessionMessageRecord["role"],
    content: r.content as string,
    created_at: r.created_at as string,
    seq: r.seq as number,
    metadata: JSON.parse(r.metadata as string),
  };
  // The wire record has no `name: null`; an absent name is absent.
  if (r.name !== null && r.name !== undefined) m.name = r.name as string;
  return m;
}
