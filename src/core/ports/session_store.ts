/** @module The conversation-session port: sessions and their messages, in order. */
import type { SessionRecord, StoredMessage } from "../types.ts";

/** A message to append; the store gives it its session and order. */
export type NewMessage = Omit<StoredMessage, "seq" | "session_id">;

/** Persistence of conversation sessions (memory_extract, memory_recall, memory_reflect). */
export interface SessionStore {
  /** Inserts a session; throws `conflict` when the id is taken. */
  createSession(session: SessionRecord): Promise<SessionRecord>;
  /** A session by id, or null. */
  getSession(id: string): Promise<SessionRecord | null>;
  /** Sets `ended_at` and/or replaces `metadata`. */
  updateSession(
    id: string,
    patch: { ended_at?: string; metadata?: Record<string, unknown> },
  ): Promise<SessionRecord>;
  /** Appends messages in order, together; returns them with their `seq`. */
  appendMessages(sessionId: string, messages: NewMessage[]): Promise<StoredMessage[]>;
  /** A session's messages in order: all of them, those after `afterSeq`, or the last `last`. */
  listMessages(
    sessionId: string,
    options?: { afterSeq?: number; last?: number },
  ): Promise<StoredMessage[]>;
  /** Number of messages in a session. */
  messageCount(sessionId: string): Promise<number>;
}
