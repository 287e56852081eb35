/**
 * @module The language-model port. Core asks for answers, facts and reflections through it;
 * src/providers implements it with a stack of HTTP models, MCP sampling and the extractive engine.
 */

/** Conversation roles (docs/tools.md#memory_extract). */
export type Role = "system" | "user" | "assistant" | "tool";

/** One message of a conversation handed to a model. */
export interface ConversationMessage {
  role: Role;
  content: string;
  /** Tool name when role is tool. */
  name?: string;
}

/** A retrieved passage an answer may cite; `n` is its 1-based marker number (`[n]`). */
export interface AnswerSource {
  n: number;
  chunk_id: string;
  document_id: string;
  title: string;
  path: string;
  text: string;
}

/** A question to answer from retrieved passages, streaming deltas as they are written. */
export interface AnswerRequest {
  question: string;
  sources: AnswerSource[];
  /**
   * Grounded mode (memory_ask `strict`): answer only with what the passages state, and answer
   * with NOT_IN_MEMORY ("Not in memory…") when they do not answer the question.
   */
  strict?: boolean;
  signal?: AbortSignal;
  /** Called once per piece of answer text, in order; their concatenation is the answer. */
  onDelta?: (delta: string) => void | Promise<void>;
}

/** A finished answer and the provider that wrote it. */
export interface ModelAnswer {
  text: string;
  provider: string;
}

/**
 * A fact worth keeping. `subject` + `attribute` is the fact's key: a later fact with the same key
 * and another `value` contradicts (supersedes) it. All lowercase-insensitive.
 */
export interface FactCandidate {
  /** One self-contained sentence, e.g. "The user prefers tabs over spaces." */
  text: string;
  subject: string;
  attribute: string;
  value: string;
}

/** Facts found in a conversation and the provider that found them. */
export interface ModelFacts {
  facts: FactCandidate[];
  provider: string;
}

/** How a session went. */
export type Outcome = "success" | "partial" | "failure" | "unknown";

/** A reflection on a finished session. */
export interface ReflectionDraft {
  outcome: Outcome;
  /** A few sentences on what happened. */
  summary: string;
  should_record_episode: boolean;
  /** What to do differently next time (failure or partial outcomes). */
  retry_feedback?: string;
  /** Short lessons worth keeping. */
  lessons: string[];
  provider: string;
}

/** How a grounded answer starts when the passages do not answer the question. */
export const NOT_IN_MEMORY = "Not in memory";

/** Passages to find decisions in, and the topic asked about when there is one. */
export interface DecisionRequest {
  sources: AnswerSource[];
  query?: string;
  signal?: AbortSignal;
}

/** A decision a model (or the rules) found in a passage; `source` is the passage's `n`. */
export interface DecisionDraft {
  statement: string;
  rationale?: string;
  who?: string;
  when?: string;
  source: number;
  /** The passage's words that record the decision, verbatim. */
  quote: string;
}

/** Decisions found in passages and the provider that found them. */
export interface ModelDecisions {
  decisions: DecisionDraft[];
  provider: string;
}

/** Meeting notes or a transcript to read. */
export interface MeetingRequest {
  text: string;
  /** The title to use instead of one read from the text. */
  title?: string;
  signal?: AbortSignal;
}

/** One action item of a meeting. */
export interface ActionItem {
  task: string;
  owner?: string;
  due?: string;
}

/** What a meeting produced, and the provider that read it. */
export interface MeetingDraft {
  title: string;
  /** YYYY-MM-DD when known, else the date as written, else null. */
  date: string | null;
  attendees: string[];
  decisions: string[];
  action_items: ActionItem[];
  open_questions: string[];
  provider: string;
}

/** Turns texts into vectors for optional semantic search. */
export interface Embedder {
  /** Provider name, for errors and logs. */
  readonly name: string;
  /** Embedding model id; stored with each vector so a model change is detected. */
  readonly model: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** What the memory operations need from language models. */
export interface MemoryModel {
  /** Answers from the sources, citing them as `[n]`. */
  answer(request: AnswerRequest): Promise<ModelAnswer>;
  /** Facts worth keeping from a conversation. */
  extractFacts(
    messages: ConversationMessage[],
    options?: { signal?: AbortSignal },
  ): Promise<ModelFacts>;
  /** A reflection on a finished conversation. */
  reflect(
    messages: ConversationMessage[],
    options?: { signal?: AbortSignal },
  ): Promise<ReflectionDraft>;
  /** Decisions recorded in the passages (rules when no model answers). */
  extractDecisions(request: DecisionRequest): Promise<ModelDecisions>;
  /** Title, date, attendees, decisions, action items and open questions of a meeting. */
  extractMeeting(request: MeetingRequest): Promise<MeetingDraft>;
  /** Present only when an embedding provider is configured. */
  readonly embedder?: Embedder;
}
