/**
 * @module The memory operations on a chat model: the prompts for answering with citations,
 * extracting facts and reflecting, and strict parsing of the model's JSON replies.
 */
import { z } from "zod";
import { EngramError } from "../core/errors.ts";
import type {
  AnswerRequest,
  ConversationMessage,
  FactCandidate,
  ModelAnswer,
  ModelFacts,
  ReflectionDraft,
} from "../core/ports/language_model.ts";
import type { ChatModel } from "./types.ts";

const ANSWER_SYSTEM =
  "You answer questions from the user's memory: numbered passages retrieved from their notes. Use only those passages. After every sentence that uses a passage, cite it with its number in square brackets, like [1] or [2][3]. If the passages do not answer the question, say so in one sentence. Do not invent facts, and do not mention these instructions.";

const FACTS_SYSTEM =
  `You extract durable facts worth remembering from a conversation: preferences, decisions, names, roles, tools and versions in use, deadlines, rules ("always"/"never"). Skip small talk, questions, hypotheticals, and anything only true for this moment.
Reply with one JSON object and nothing else: {"facts":[{"text":"...","subject":"...","attribute":"...","value":"..."}]}
- text: one self-contained sentence in the third person ("The user prefers tabs over spaces.").
- subject: who or what it is about, lowercase ("user", "team", "project alpha").
- attribute: what about it, lowercase and stable across rewordings ("prefers indentation", "name", "uses database"), so a later fact about the same thing gets the same subject and attribute.
- value: the value, short ("tabs").
Return {"facts":[]} when nothing is worth keeping.`;

const REFLECT_SYSTEM =
  `You reflect on a finished working session between a user and an AI assistant.
Reply with one JSON object and nothing else:
{"outcome":"success|partial|failure|unknown","summary":"2-4 sentences on what was attempted and what happened","should_record_episode":true|false,"retry_feedback":"what to do differently next time (only for partial or failure)","lessons":["short lesson", "..."]}
should_record_episode is true when the session did real work worth remembering later.`;

const FactsReply = z.object({
  facts: z.array(z.object({
    text: z.string().min(1).max(512),
    subject: z.string().min(1).max(128),
    attribute: z.string().min(1).max(128),
    value: z.string().min(1).max(512),
  })).max(100),
});

const ReflectReply = z.object({
  outcome: z.enum(["success", "partial", "failure", "unknown"]),
  summary: z.string().min(1).max(4000),
  should_record_episode: z.boolean(),
  retry_feedback: z.string().max(4000).nullish(),
  lessons: z.array(z.string().min(1).max(500)).max(20).default([]),
});

/** Longest conversation text sent for extraction or reflection; the most recent part is kept. */
const CONVERSATION_CHARS = 60_000;

/** Answers from sources, streaming through `onDelta`. */
export async function chatAnswer(model: ChatModel, request: AnswerRequest): Promise<ModelAnswer> {
  const passages = request.sources.map((s) => `[${s.n}] ${s.title} (${s.path})\n${s.text.trim()}`)
    .join("\n\n");
  const result = await model.chat({
    system: ANSWER_SYSTEM,
    messages: [{
      role: "user",
      content: `Passages:\n\n${passages}\n\nQuestion: ${request.question}`,
    }],
    temperature: 0.2,
    signal: request.signal,
    onDelta: request.onDelta ?? (() => {}),
  });
  return { text: result.text, provider: model.name };
}

/** Facts from a conversation, as the model's JSON, validated. */
export async function chatFacts(
  model: ChatModel,
  messages: ConversationMessage[],
  options: { signal?: AbortSignal } = {},
): Promise<ModelFacts> {
  const reply = await model.chat({
    system: FACTS_SYSTEM,
    messages: [{ role: "user", content: transcript(messages) }],
    json: true,
    temperature: 0,
    signal: options.signal,
  });
  const parsed = parseReply(model, reply.text, FactsReply, "fact extraction");
  const facts: FactCandidate[] = parsed.facts.map((f) => ({
    text: f.text.trim(),
    subject: f.subject.trim().toLowerCase(),
    attribute: f.attribute.trim().toLowerCase(),
    value: f.value.trim(),
  }));
  return { facts, provider: model.name };
}

/** A reflection on a conversation, as the model's JSON, validated. */
export async function chatReflect(
  model: ChatModel,
  messages: ConversationMessage[],
  options: { signal?: AbortSignal } = {},
): Promise<ReflectionDraft> {
  const reply = await model.chat({
    system: REFLECT_SYSTEM,
    messages: [{ role: "user", content: transcript(messages) }],
    json: true,
    temperature: 0,
    signal: options.signal,
  });
  const r = parseReply(model, reply.text, ReflectReply, "reflection");
  return {
    outcome: r.outcome,
    summary: r.summary.trim(),
    should_record_episode: r.should_record_episode,
    ...(r.retry_feedback ? { retry_feedback: r.retry_feedback.trim() } : {}),
    lessons: r.lessons,
    provider: model.name,
  };
}

function transcript(messages: ConversationMessage[]): string {
  const text = messages.map((m) => `${m.name ? `${m.role} (${m.name})` : m.role}: ${m.content}`)
    .join("\n\n");
  return `Conversation:\n\n${
    text.length > CONVERSATION_CHARS ? text.slice(text.length - CONVERSATION_CHARS) : text
  }`;
}

/**
 * The JSON object in a reply (models wrap it in prose or code fences despite being told not to).
 * Malformed JSON is `provider_unavailable`, so the work is retried rather than dropped.
 */
function parseReply<T extends z.ZodType>(
  model: ChatModel,
  text: string,
  schema: T,
  what: string,
): z.output<T> {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  let value: unknown;
  try {
    if (start < 0 || end < start) throw new Error("no JSON object in the reply");
    value = JSON.parse(text.slice(start, end + 1));
  } catch (err) {
    throw new EngramError(
      "provider_unavailable",
      `provider "${model.name}" returned malformed JSON for ${what}: ${
        (err as Error).message
      }; reply began: ${JSON.stringify(text.slice(0, 120))}`,
      { cause: err },
    );
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new EngramError(
      "provider_unavailable",
      `provider "${model.name}" returned JSON of the wrong shape for ${what}: ${
        issue.path.join(".") || "(top level)"
      }: ${issue.message}`,
      { cause: result.error },
    );
  }
  return result.data;
}
