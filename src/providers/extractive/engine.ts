/**
 * @module The extractive engine: the MemoryModel used when no language model is configured. It
 * answers with verbatim source sentences, extracts facts by rule and reflects by keyword, so engram
 * stays useful offline; it has no embedder.
 */
import type {
  AnswerRequest,
  ConversationMessage,
  MemoryModel,
  ModelAnswer,
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
    return { text: await extractiveAnswer(request), provider: this.name };
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
