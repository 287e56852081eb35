/**
 * @module The extractive engine's reflection: the outcome read from the closing messages' wording,
 * a summary from the first request and the last reply, and lessons from sentences that say so.
 */
import type {
  ConversationMessage,
  Outcome,
  ReflectionDraft,
} from "../../core/ports/language_model.ts";
import { splitSentences } from "../../core/text/sentences.ts";
import { terms } from "../../core/text/terms.ts";

/** Longest summary; the request and the reply get half each. */
const SUMMARY_CHARS = 600;
const RETRY_CHARS = 300;
const LESSON_CHARS = 300;
const MAX_LESSONS = 5;
/** Terms a message needs to count as substance ("thanks!" has none). */
const SUBSTANCE_TERMS = 3;

/** Wording that says something still goes wrong. */
const FAILURE: readonly RegExp[] = [
  /\bstill (?:failing|fails|broken|crashing|erroring|not working|getting (?:an? |the )?errors?)\b/i,
  /\b(?:doesn't|does not|didn't|did not|won't|isn't|is not|wasn't|aren't) (?:work|working|fixed|solved|resolved|help|helping)\b/i,
  /\bnot (?:yet )?(?:working|fixed|solved|resolved)\b/i,
  /\bno luck\b/i,
  /\b(?:gave|give|giving) up\b/i,
  /\bfail(?:s|ed|ing|ure)?\b/i,
  /\berrors?\b/i,
  /\bbroken\b/i,
  /\bcrash(?:es|ed|ing)?\b/i,
  /\bexception\b/i,
  /\bstuck\b/i,
  /\bcould(?:n't| not) (?:get|make|fix|find)\b/i,
];
/** "no errors", "fixed the crash": failure words that report success. */
const FAILURE_GONE =
  /\b(?:no|without|zero|0) (?:more )?(?:errors?|failures?|failing tests?|crash(?:es)?)\b|\b(?:fixed|solved|resolved) the (?:error|failure|crash|exception)s?\b/gi;
const SUCCESS =
  /\b(?:thanks|thank you|thx|works|worked|working now|fixed|solved|resolved|done|perfect|great|awesome|excellent|that did it|lgtm|looks good|pass(?:es|ed|ing)?|succeeded|successful(?:ly)?|all good|ship it)\b|\uE000/i;
const LESSON =
  /\b(?:lessons?|learned|learnt|next time|should have|should've|remember to|takeaway|in the future)\b/i;

/** What one stretch of text says about how things went. */
interface Signals {
  success: boolean;
  failure: boolean;
}

/** A reflection on the conversation, without the provider name. */
export function extractiveReflection(
  messages: ConversationMessage[],
): Omit<ReflectionDraft, "provider"> {
  const talk = messages.filter((m) =>
    (m.role === "user" || m.role === "assistant") && m.content.trim().length > 0
  );
  const firstReply = talk.findIndex((m) => m.role === "assistant");
  const feedbackAt = talk.findLastIndex((m, i) =>
    m.role === "user" && firstReply >= 0 && i > firstReply
  );
  const replyAt = talk.findLastIndex((m) => m.role === "assistant");
  // The user's word after seeing a reply decides; a reply after it (or the only reply) adds to it.
  const judged = [feedbackAt, replyAt > feedbackAt ? replyAt : -1].filter((i) => i >= 0);
  let success = false;
  let failure = false;
  let failing: string | undefined;
  for (const i of judged) {
    const text = talk[i].role === "assistant" ? replyEnds(talk[i].content) : talk[i].content;
    const s = signals(text);
    success ||= s.success;
    failure ||= s.failure;
    if (s.failure && !failing) failing = failingSentences(text);
  }
  const outcome: Outcome = talk.length < 2
    ? "unknown"
    : success && failure
    ? "partial"
    : success
    ? "success"
    : failure
    ? "failure"
    : "unknown";
  const request = talk.find((m) => m.role === "user");
  const reply = replyAt >= 0 ? talk[replyAt] : undefined;
  const half = SUMMARY_CHARS / 2 - 30;
  const summary = [
    request ? `The user asked: ${leading(request.content, half)}` : "",
    reply ? `The assistant's last reply: ${leading(reply.content, half)}` : "",
  ].filter(Boolean).join(" ");
  const retry = (outcome === "failure" || outcome === "partial") && failing
    ? `Unresolved at the end: ${shorten(failing, RETRY_CHARS - 24)}`
    : undefined;
  return {
    outcome,
    summary: shorten(summary, SUMMARY_CHARS),
    should_record_episode:
      talk.filter((m) => terms(m.content).length >= SUBSTANCE_TERMS).length >= 2,
    ...(retry ? { retry_feedback: retry } : {}),
    lessons: lessons(talk),
  };
}

function signals(text: string): Signals {
  const cleared = text.replace(FAILURE_GONE, "\uE000");
  let rest = cleared;
  let failure = false;
  for (const pattern of FAILURE) {
    const global = new RegExp(pattern.source, "gi");
    if (global.test(rest)) failure = true;
    // Removing failure wording keeps "doesn't work" from also reading as "works".
    rest = rest.replace(global, " ");
  }
  return { success: SUCCESS.test(rest), failure };
}

/** A reply's opening and closing sentences: the middle is usually explanation. */
function replyEnds(content: string): string {
  const sentences = splitSentences(content).map((s) => s.text);
  return [...sentences.slice(0, 2), ...sentences.slice(2).slice(-1)].join(" ");
}

/** The sentences of `text` that report a failure, joined. */
function failingSentences(text: string): string | undefined {
  const found = splitSentences(text).map((s) => s.text).filter((s) => signals(s).failure);
  return found.length > 0 ? found.join(" ").replace(/\s+/g, " ") : undefined;
}

/** The first sentences of `text` that fit in `max` characters (one, clipped, if none fits). */
function leading(text: string, max: number): string {
  let out = "";
  for (const s of splitSentences(text)) {
    const sentence = s.text.replace(/\s+/g, " ");
    const next = out ? `${out} ${sentence}` : sentence;
    if (next.length > max) return out || shorten(sentence, max);
    out = next;
  }
  return out;
}

function lessons(talk: ConversationMessage[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of talk) {
    for (const s of splitSentences(m.content)) {
      const text = s.text.replace(/\s+/g, " ");
      if (!LESSON.test(text) || /\?$/.test(text) || seen.has(text.toLowerCase())) continue;
      seen.add(text.toLowerCase());
      out.push(shorten(text, LESSON_CHARS));
      if (out.length >= MAX_LESSONS) return out;
    }
  }
  return out;
}

/** `text` in at most `max` characters, cut at a word and marked with "…" when cut. */
function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const room = flat.slice(0, max - 1);
  return `${room.replace(/\s+\S*$/, "") || room}…`;
}
