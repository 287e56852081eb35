/** @module Conversation sessions: opening on first use, appending messages, the not-found and closed errors. */
import { EngramError } from "../errors.ts";
import type { ConversationMessage } from "../ports/language_model.ts";
import type { SessionStore } from "../ports/session_store.ts";
import type {
  Brain,
  CallerContext,
  SessionMessageRecord,
  SessionRecord,
  StoredMessage,
} from "../types.ts";
import { newId } from "../ids.ts";

/** A session of this brain that memory_reflect has not closed; created when it does not exist yet. */
export async function openSession(
  store: SessionStore,
  brain: Brain,
  options: {
    sessionId: string;
    caller: CallerContext;
    actorId?: string;
    metadata?: Record<string, unknown>;
  },
): Promise<SessionRecord> {
  let session = await store.getSession(options.sessionId);
  if (!session) {
    try {
      session = await store.createSession({
        id: options.sessionId,
        brain_id: brain.id,
        client_id: options.caller.clientId,
        actor_id: options.actorId ?? null,
        started_at: new Date().toISOString(),
        ended_at: null,
        metadata: options.metadata ?? {},
      });
    } catch (err) {
      // Another call created it in between: use theirs.
      if (!(err instanceof EngramError && err.code === "conflict")) throw err;
      session = await store.getSession(options.sessionId);
      if (!session) throw err;
    }
  }
  if (session.brain_id !== brain.id) throw otherBrain(session.id, brain);
  if (session.ended_at !== null) {
    throw new EngramError(
      "conflict",
      `session "${session.id}" was closed by memory_reflect at ${session.ended_at}; start a new session id`,
    );
  }
  return session;
}

/** An existing session of this brain, open or closed. */
export async function requireSession(
  store: SessionStore,
  brain: Brain,
  sessionId: string,
): Promise<SessionRecord> {
  const session = await store.getSession(sessionId);
  if (!session) {
    throw new EngramError(
      "not_found",
      `session "${sessionId}" not found in brain "${brain.slug}"; sessions are created by memory_extract with a session_id`,
    );
  }
  if (session.brain_id !== brain.id) throw otherBrain(sessionId, brain);
  return session;
}

function otherBrain(sessionId: string, brain: Brain): EngramError {
  return new EngramError(
    "not_found",
    `session "${sessionId}" not found in brain "${brain.slug}" (it belongs to another brain); pass that brain or use a new session id`,
  );
}

/** Appends messages; all but the last carry `skip_extract` (the last one triggers extraction). */
export function appendConversation(
  store: SessionStore,
  session: SessionRecord,
  options: { messages: ConversationMessage[]; actorId?: string },
): Promise<StoredMessage[]> {
  const now = new Date().toISOString();
  const last = options.messages.length - 1;
  return store.appendMessages(
    session.id,
    options.messages.map((m, i) => ({
      id: newId("msg"),
      role: m.role,
      content: m.content,
      ...(m.name !== undefined ? { name: m.name } : {}),
      created_at: now,
      metadata: {
        ...(options.actorId !== undefined ? { actor_id: options.actorId } : {}),
        skip_extract: i < last,
      },
    })),
  );
}

/** The wire shape: the create-time metadata (actor_id, skip_extract) is not echoed. */
export function toMessageRecord(m: StoredMessage): SessionMessageRecord {
  return {
    id: m.id,
    session_id: m.session_id,
    role: m.role,
    content: m.content,
    ...(m.name !== undefined ? { name: m.name } : {}),
    created_at: m.created_at,
  };
}

/** Messages as a model sees them. */
export function toConversation(messages: StoredMessage[]): ConversationMessage[] {
  return messages.map((m) => ({
    role: m.role,
    content: m.content,
    ...(m.name !== undefined ? { name: m.name } : {}),
  }));
}
