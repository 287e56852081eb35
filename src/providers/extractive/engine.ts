/**
 * @module The extractive engine: the MemoryModel used when no language model is configured. It
 * answers with verbatim source sentences (in strict mode only those that answer the question),
 * extracts facts, decisions and meetings by rule and reflects by keyword, so engram stays useful
 * offline; it has no embedder. The synthesis rules load on first use: `engram stdio` starts
 * without them.
 */
import type {
  AnswerRequest,
  ConversationMessage,
  DecisionRequest,
  MeetingDraft,
  MeetingRequest,
  MemoryModel,
  ModelAnswer,
  ModelDecisions,
  ModelFacts,
  ReflectionDraft,
} from "../../core/ports/language_model.ts";
import { extractiveAnswer } from "./answer.ts";
import { extractFacts } from "./facts.ts";
import { extractiveReflection } from "./reflect.ts";

/** The provider name the extractive engine reports. */
export const EXTRACTIVE_PROVIDER = "extractive";

/** A MemoryModel that needs no model: extractive answers, rule-based facts and reflections. */
export class ExtractiveEngine implements MemoryModel {
  /** Provider name, for results and logs. */
  readonly name: string = EXTRACTIVE_PROVIDER;

  /** Answers with the best-matching source sentences, each followed by its `[n]` marker. */
  async answer(request: AnswerRequest): Promise<ModelAnswer> {
    if (request.strict) {
      const { groundedAnswerText } = await import("../../core/answering/grounding.ts");
      request.signal?.throwIfAborted();
      const text = groundedAnswerText(request.question, request.sources);
      await request.onDelta?.(text);
      return { text, provider: this.name };
    }
    return { text: await extractiveAnswer(request), provider: this.name };
  }

  /** Decisions the rules find in each passage, quoting the passage verbatim. */
  async extractDecisions(request: DecisionRequest): Promise<ModelDecisions> {
    const { findDecisionsIn } = await import("../../core/synthesis/decision_rules.ts");
    request.signal?.throwIfAborted();
    const decisions = request.sources.flatMap((source) =>
      findDecisionsIn(source.text).map((d) => ({
        statement: d.statement,
        ...(d.rationale ? { rationale: d.rationale } : {}),
        ...(d.who ? { who: d.who } : {}),
        source: source.n,
        quote: d.quote,
      }))
    );
    return { decisions, provider: this.name };
  }

  /** A meeting read by rule. */
  async extractMeeting(request: MeetingRequest): Promise<MeetingDraft> {
    const { readMeeting } = await import("../../core/synthesis/meeting_rules.ts");
    request.signal?.throwIfAborted();
    return { ...readMeeting(request.text, { title: request.title }), provider: this.name };
  }

  /** Facts the rules find in the user's (and, for team facts, the assistant's) statements. */
  extractFacts(
    messages: ConversationMessage[],
    options: { signal?: AbortSignal } = {},
  ): Promise<ModelFacts> {
    options.signal?.throwIfAborted();
    return Promise.resolve({ facts: extractFacts(messages), provider: this.name });
  }

  /** A reflection from the conversation's wording. */
  reflect(
    messages: ConversationMessage[],
    options: { signal?: AbortSignal } = {},
  ): Promise<ReflectionDraft> {
    options.signal?.throwIfAborted();
    return Promise.resolve({ ...extractiveReflection(messages), provider: this.name });
  }
}
