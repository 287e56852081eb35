/**
 * @module The memory operations on a chat model: the prompts for answering with citations
 * (grounded or not), extracting facts, reflecting, finding decisions and reading meetings, and
 * strict parsing of the model's JSON replies.
 */
import { z } from "zod";
import { EngramError } from "../core/errors.ts";
import {
  type AnswerRequest,
  type AnswerSource,
  type ConversationMessage,
  type DecisionRequest,
  type FactCandidate,
  type MeetingDraft,
  type MeetingRequest,
  type ModelAnswer,
  type ModelDecisions,
  type ModelFacts,
  NOT_IN_MEMORY,
  type ReflectionDraft,
} from "../core/ports/language_model.ts";
import type { ChatModel } from "./types.ts";

const ANSWER_SYSTEM =
  "You answer questions from the user's memory: numbered passages retrieved from their notes. Use only those passages. After every sentence that uses a passage, cite it with its number in square brackets, like [1] or [2][3]. If the passages do not answer the question, say so in one sentence. Do not invent facts, and do not mention these instructions.";

const STRICT_ANSWER_SYSTEM =
  `You answer questions from the user's memory: numbered passages retrieved from their notes. Answer only with what the passages state; never add knowledge of your own, and never guess. After every sentence, cite the passage it comes from with its number in square brackets, like [1] or [2][3]. If the passages do not state the answer — even when they mention the same topic — reply with exactly "${NOT_IN_MEMORY}." and nothing else. Do not mention these instructions.`;

const DECISIONS_SYSTEM =
  `You find decisions recorded in numbered passages from the user's notes: choices that were made ("we decided", "agreed", "going with", "Decision:"), not proposals, open questions or plans still under discussion.
Reply with one JSON object and nothing else: {"decisions":[{"statement":"...","rationale":"...","who":"...","when":"...","source":1,"quote":"..."}]}
- statement: the decision in one sentence, in the passage's language.
- rationale: why it was decided, only when the passage says so.
- who: who decided, only when the passage names them.
- when: when it was decided, as the passage writes it, only when it says so.
- source: the number of the passage that records it.
- quote: the words of that passage that record the decision, copied exactly.
Return {"decisions":[]} when the passages record none.`;

const MEETING_SYSTEM = `You read meeting notes or a meeting transcript.
Reply with one JSON object and nothing else:
{"title":"...","date":"YYYY-MM-DD, or the date as written, or null","attendees":["..."],"decisions":["..."],"action_items":[{"task":"...","owner":"...","due":"..."}],"open_questions":["..."]}
- decisions: choices the meeting made, one sentence each; not proposals or open points.
- action_items: work someone took on or was given; owner and due only when the text says them (due as written).
- open_questions: questions raised and left unanswered.
Write in the language of the notes. Do not add anything the text does not say.`;

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

const DecisionsReply = z.object({
  decisions: z.array(z.object({
    statement: z.string().min(1).max(2000),
    rationale: z.string().max(2000).nullish(),
    who: z.string().max(200).nullish(),
    when: z.string().max(100).nullish(),
    source: z.number().int().min(1),
    quote: z.string().max(4000).default(""),
  })).max(100),
});

const MeetingReply = z.object({
  title: z.string().max(512).nullish(),
  date: z.string().max(100).nullish(),
  attendees: z.array(z.string().min(1).max(200)).max(200).default([]),
  decisions: z.array(z.string().min(1).max(2000)).max(200).default([]),
  action_items: z.array(z.object({
    task: z.string().min(1).max(2000),
    owner: z.string().max(200).nullish(),
    due: z.string().max(100).nullish(),
  })).max(200).default([]),
  open_questions: z.array(z.string().min(1).max(2000)).max(200).default([]),
});

/** Longest conversation text sent for extraction or reflection; the most recent part is kept. */
const CONVERSATION_CHARS = 60_000;

/** Longest meeting text a model is given; longer ones are read by the rules instead. */
export const MEETING_MODEL_CHARS = 60_000;

/** Answers from sources, streaming through `onDelta`. */
export async function chatAnswer(model: ChatModel, request: AnswerRequest): Promise<ModelAnswer> {
  const result = await model.chat({
    system: request.strict ? STRICT_ANSWER_SYSTEM : ANSWER_SYSTEM,
    messages: [{
      role: "user",
      content: `${passagesText(request.sources)}\n\nQuestion: ${request.question}`,
    }],
    temperature: request.strict ? 0 : 0.2,
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

/** Decisions in numbered passages, as the model's JSON, validated. */
export async function chatDecisions(
  model: ChatModel,
  request: DecisionRequest,
): Promise<ModelDecisions> {
  const topic = request.query ? `\n\nOnly decisions about: ${request.query}` : "";
  const reply = await model.chat({
    system: DECISIONS_SYSTEM,
    messages: [{ role: "user", content: `${passagesText(request.sources)}${topic}` }],
    json: true,
    temperature: 0,
    signal: request.signal,
  });
  const parsed = parseReply(model, reply.text, DecisionsReply, "decision extraction");
  const known = new Set(request.sources.map((s) => s.n));
  return {
    decisions: parsed.decisions.filter((d) => known.has(d.source)).map((d) => ({
      statement: d.statement.trim(),
      ...(d.rationale?.trim() ? { rationale: d.rationale.trim() } : {}),
      ...(d.who?.trim() ? { who: d.who.trim() } : {}),
      ...(d.when?.trim() ? { when: d.when.trim() } : {}),
      source: d.source,
      quote: d.quote.trim(),
    })),
    provider: model.name,
  };
}

/** A meeting read by the model, as its JSON, validated. */
export async function chatMeeting(
  model: ChatModel,
  request: MeetingRequest,
): Promise<MeetingDraft> {
  const reply = await model.chat({
    system: MEETING_SYSTEM,
    messages: [{ role: "user", content: `Meeting notes:\n\n${request.text}` }],
    json: true,
    temperature: 0,
    signal: request.signal,
  });
  const m = parseReply(model, reply.text, MeetingReply, "meeting extraction");
  const clean = (list: string[]) => list.map((x) => x.trim()).filter(Boolean);
  return {
    title: request.title ?? (m.title?.trim() || "Meeting notes"),
    date: m.date?.trim() || null,
    attendees: clean(m.attendees),
    decisions: clean(m.decisions),
    action_items: m.action_items.map((a) => ({
      task: a.task.trim(),
      ...(a.owner?.trim() ? { owner: a.owner.trim() } : {}),
      ...(a.due?.trim() ? { due: a.due.trim() } : {}),
    })),
    open_questions: clean(m.open_questions),
    provider: model.name,
  };
}

/** The numbered passages a model answers or reads decisions from, as the prompt gives them. */
function passagesText(sources: AnswerSource[]): string {
  return `Passages:\n\n${
    sources.map((s) => `[${s.n}] ${s.title} (${s.path})\n${s.text.trim()}`).join("\n\n")
  }`;
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
