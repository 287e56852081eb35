/**
 * @module The provider stack (docs/configuration.md#language-model-providers): configured providers in
 * order, then the extractive engine, which needs no model and never fails.
 *
 * - answers and reflections fall through to the next provider when one fails before writing
 *   anything; once an answer has started streaming, a failure ends it with the error;
 * - fact extraction uses the model providers only and throws when all fail, so the durable job
 *   retries and then reports the failure instead of quietly keeping rule-based facts; with no
 *   model configured it uses the extractive rules;
 * - decisions and meetings fall through like reflections, ending with the rules; a meeting text
 *   too long for one model call is read by the rules directly.
 */
import { EngramError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type {
  AnswerRequest,
  ConversationMessage,
  DecisionRequest,
  Embedder,
  MeetingDraft,
  MeetingRequest,
  MemoryModel,
  ModelAnswer,
  ModelDecisions,
  ModelFacts,
  ReflectionDraft,
} from "../core/ports/language_model.ts";
import type { ProviderConfig } from "../config/schema.ts";
import { AnthropicProvider } from "./anthropic.ts";
import {
  chatAnswer,
  chatDecisions,
  chatFacts,
  chatMeeting,
  chatReflect,
  MEETING_MODEL_CHARS,
} from "./chat_engine.ts";
import { ExtractiveEngine } from "./extractive/engine.ts";
import { OpenAiProvider } from "./openai.ts";
import { type CreateMessage, SamplingProvider } from "./sampling.ts";
import type { ChatModel } from "./types.ts";

/** A configured entry: an HTTP model, or the place sampling takes when the client offers it. */
type Slot = { chat: ChatModel } | { sampling: { name?: string; maxTokens: number } };

/** The providers of one process, built once from config. */
export class ProviderSet {
  readonly embedder?: Embedder;
  #slots: Slot[];
  #logger: Logger;

  constructor(providers: ProviderConfig[], options: { logger: Logger; retryBaseMs?: number }) {
    this.#logger = options.logger;
    const slots: Slot[] = [];
    // With nothing configured, the client's own model (when it offers sampling) beats no model.
    const list: ProviderConfig[] = providers.length
      ? providers
      : [{ type: "sampling", max_tokens: 1024 }];
    for (const p of list) {
      if (p.type === "extractive") break;
      if (p.type === "sampling") {
        slots.push({ sampling: { name: p.name, maxTokens: p.max_tokens } });
      } else if (p.type === "openai") {
        const provider = new OpenAiProvider({
          name: p.name ?? "openai",
          baseUrl: p.base_url,
          model: p.model,
          apiKey: p.api_key,
          embeddingModel: p.embedding_model,
          timeoutMs: p.timeout_ms,
          maxRetries: p.max_retries,
          retryBaseMs: options.retryBaseMs,
          maxTokens: p.max_tokens,
        });
        slots.push({ chat: provider });
        this.embedder ??= provider.embedder();
      } else {
        slots.push({
          chat: new AnthropicProvider({
            name: p.name ?? "anthropic",
            baseUrl: p.base_url,
            model: p.model,
            apiKey: p.api_key,
            timeoutMs: p.timeout_ms,
            maxRetries: p.max_retries,
            retryBaseMs: options.retryBaseMs,
            maxTokens: p.max_tokens,
          }),
        });
      }
    }
    this.#slots = slots;
  }

  /** Names of the configured model providers, in order (for logs and `engram version`-like output). */
  get names(): string[] {
    return this.#slots.map((s) => "chat" in s ? s.chat.name : s.sampling.name ?? "sampling");
  }

  /** The stack for one MCP session; `sampling` is given when the client advertises it. */
  forSession(sampling?: CreateMessage): ModelStack {
    const chats = this.#slots.flatMap((s): ChatModel[] => {
      if ("chat" in s) return [s.chat];
      if (!sampling) return [];
      return [
        new SamplingProvider({
          name: s.sampling.name,
          maxTokens: s.sampling.maxTokens,
          createMessage: sampling,
        }),
      ];
    });
    return new ModelStack(chats, { logger: this.#logger, embedder: this.embedder });
  }

  /** The stack for background work and CLI commands: no client, so no sampling. */
  background(): ModelStack {
    return this.forSession(undefined);
  }
}

/** Chat models in order, with the extractive engine last. */
export class ModelStack implements MemoryModel {
  readonly embedder?: Embedder;
  readonly chats: readonly ChatModel[];
  #logger: Logger;
  #fallback = new ExtractiveEngine();

  constructor(chats: ChatModel[], options: { logger: Logger; embedder?: Embedder }) {
    this.chats = chats;
    this.#logger = options.logger;
    this.embedder = options.embedder;
  }

  async answer(request: AnswerRequest): Promise<ModelAnswer> {
    for (const chat of this.chats) {
      let streamed = false;
      try {
        return await chatAnswer(chat, {
          ...request,
          onDelta: async (delta) => {
            streamed = true;
            await request.onDelta?.(delta);
          },
        });
      } catch (err) {
        if (request.signal?.aborted) throw err;
        if (streamed) throw midway(chat, err);
        this.#fellThrough(chat, "answer", err);
      }
    }
    return await this.#fallback.answer(request);
  }

  async extractFacts(
    messages: ConversationMessage[],
    options: { signal?: AbortSignal } = {},
  ): Promise<ModelFacts> {
    if (this.chats.length === 0) return await this.#fallback.extractFacts(messages, options);
    const failures: string[] = [];
    for (const chat of this.chats) {
      try {
        return await chatFacts(chat, messages, options);
      } catch (err) {
        if (options.signal?.aborted) throw err;
        failures.push((err as Error).message);
        this.#fellThrough(chat, "fact extraction", err);
      }
    }
    throw new EngramError(
      "provider_unavailable",
      `fact extraction failed on every configured provider: ${failures.join("; ")}`,
    );
  }

  reflect(
    messages: ConversationMessage[],
    options: { signal?: AbortSignal } = {},
  ): Promise<ReflectionDraft> {
    return this.#firstChat("reflection", {
      signal: options.signal,
      run: (chat) => chatReflect(chat, messages, options),
      fallback: () => this.#fallback.reflect(messages, options),
    });
  }

  extractDecisions(request: DecisionRequest): Promise<ModelDecisions> {
    return this.#firstChat("decision extraction", {
      signal: request.signal,
      run: (chat) => chatDecisions(chat, request),
      fallback: () => this.#fallback.extractDecisions(request),
    });
  }

  async extractMeeting(request: MeetingRequest): Promise<MeetingDraft> {
    if (request.text.length > MEETING_MODEL_CHARS && this.chats.length > 0) {
      this.#logger.info(
        `meeting text of ${request.text.length} characters is over the ${MEETING_MODEL_CHARS} a model is given; reading it by rule`,
      );
      return await this.#fallback.extractMeeting(request);
    }
    return await this.#firstChat("meeting extraction", {
      signal: request.signal,
      run: (chat) => chatMeeting(chat, request),
      fallback: () => this.#fallback.extractMeeting(request),
    });
  }

  /**
   * What the first chat model that succeeds gives for `what`; a failure falls through to the
   * next, and past the last to the rules (`fallback`). An aborted call ends with its error.
   */
  async #firstChat<T>(
    what: string,
    o: { signal?: AbortSignal; run: (chat: ChatModel) => Promise<T>; fallback: () => Promise<T> },
  ): Promise<T> {
    for (const chat of this.chats) {
      try {
        return await o.run(chat);
      } catch (err) {
        if (o.signal?.aborted) throw err;
        this.#fellThrough(chat, what, err);
      }
    }
    return await o.fallback();
  }

  #fellThrough(chat: ChatModel, what: string, err: unknown): void {
    this.#logger.warn(`provider "${chat.name}" failed for ${what}; trying the next one`, {
      error: (err as Error).message,
    });
  }
}

/** A failure after part of the answer was sent: no fallback, the call ends with the error. */
function midway(chat: ChatModel, err: unknown): EngramError {
  const e = err instanceof EngramError ? err : null;
  return new EngramError(
    e?.code === "rate_limited" ? "rate_limited" : "provider_unavailable",
    `the answer from provider "${chat.name}" stopped midway: ${(err as Error).message}`,
    { cause: err },
  );
}
