/**
 * @module A ChatModel for OpenAI-compatible chat-completions endpoints: OpenAI, Ollama,
 * llama.cpp, vLLM, LM Studio, OpenRouter. Streams with `stream: true` and parses the
 * `chat.completion.chunk` events up to `data: [DONE]`.
 */
import type { Embedder } from "../core/ports/language_model.ts";
import { HttpClient, readText } from "./http_client.ts";
import { OpenAiEmbedder } from "./openai_embedder.ts";
import { parseSse } from "./sse_parser.ts";
import type { ChatModel, ChatRequest, ChatResult } from "./types.ts";

/** Options for `OpenAiProvider`. */
export interface OpenAiOptions {
  /** The configured provider name, used in errors and logs. */
  name: string;
  /** API root including the version segment, e.g. "http://127.0.0.1:11434/v1". */
  baseUrl: string;
  /** Chat model id. */
  model: string;
  /** Sent as `Authorization: Bearer …` when set (local servers usually need none). */
  apiKey?: string;
  /** Embedding model id; when set, `embedder()` returns an Embedder on `${baseUrl}/embeddings`. */
  embeddingModel?: string;
  /** Bounds the wait for headers and between stream chunks (default 60000 ms). */
  timeoutMs?: number;
  /** Retries on 408 / 429 / 5xx / network errors before the reply starts (default 2). */
  maxRetries?: number;
  /** First retry delay in ms (default 500). */
  retryBaseMs?: number;
  /** Default `max_tokens` when a request sets none; omitted from requests when unset. */
  maxTokens?: number;
  /** Texts per embeddings request (default 64). */
  embeddingBatchSize?: number;
}

/** One parsed chunk or reply, loosely typed: servers differ in what else they send. */
interface CompletionJson {
  model?: unknown;
  error?: { message?: unknown } | string;
  choices?: {
    delta?: { content?: unknown };
    message?: { content?: unknown };
    finish_reason?: unknown;
  }[];
}

/** Chat completions against an OpenAI-compatible API. */
export class OpenAiProvider implements ChatModel {
  /** The configured provider name. */
  readonly name: string;
  readonly #options: OpenAiOptions;
  readonly #baseUrl: string;
  readonly #http: HttpClient;

  constructor(options: OpenAiOptions) {
    this.name = options.name;
    this.#options = options;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#http = new HttpClient({
      name: options.name,
      baseUrl: this.#baseUrl,
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      retryBaseMs: options.retryBaseMs,
    });
  }

  /** The embedder on this endpoint, when an embedding model is configured. */
  embedder(): Embedder | undefined {
    const model = this.#options.embeddingModel;
    if (!model) return undefined;
    return new OpenAiEmbedder(this.#http, {
      name: this.name,
      url: `${this.#baseUrl}/embeddings`,
      model,
      batchSize: this.#options.embeddingBatchSize,
    });
  }

  /** Completes a chat; streams deltas to `request.onDelta` when set. */
  async chat(request: ChatRequest): Promise<ChatResult> {
    const stream = request.onDelta !== undefined;
    const body: Record<string, unknown> = {
      model: this.#options.model,
      messages: [
        ...(request.system ? [{ role: "system", content: request.system }] : []),
        ...request.messages.map((m) => ({ role: m.role, content: m.content })),
      ],
      stream,
    };
    const maxTokens = request.maxTokens ?? this.#options.maxTokens;
    if (maxTokens !== undefined) body.max_tokens = maxTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.json) body.response_format = { type: "json_object" };
    const url = `${this.#baseUrl}/chat/completions`;
    if (!request.onDelta) {
      const reply = await this.#http.postJson(url, body, { signal: request.signal });
      return this.#completion(reply as CompletionJson);
    }
    const reply = await this.#http.postStream(url, body, { signal: request.signal });
    if (!reply.contentType.includes("text/event-stream")) {
      // Some servers ignore `stream`; their whole reply then arrives as one delta.
      const text = await readText(reply.body);
      const result = this.#completion(this.#parse(text));
      if (result.text !== "") await request.onDelta(result.text);
      return result;
    }
    return await this.#readStream(reply.body, request.onDelta);
  }

  /** Reads `chat.completion.chunk` events until `[DONE]`, passing each text delta on. */
  async #readStream(
    body: ReadableStream<Uint8Array>,
    onDelta: (delta: string) => void | Promise<void>,
  ): Promise<ChatResult> {
    let text = "";
    let model = this.#options.model;
    for await (const event of parseSse(body)) {
      if (event.data === "[DONE]") return { text, model };
      const chunk = this.#parse(event.data);
      if (chunk.error !== undefined) {
        throw this.#http.error(`stream ended midway: the API sent an error: ${describe(chunk)}`);
      }
      if (typeof chunk.model === "string" && chunk.model !== "") model = chunk.model;
      const choice = chunk.choices?.[0];
      const delta = choice?.delta?.content;
      if (typeof delta === "string" && delta !== "") {
        text += delta;
        await onDelta(delta);
      }
      if (choice?.finish_reason === "error") {
        throw this.#http.error("stream ended midway: the model finished with an error");
      }
    }
    throw this.#http.error("stream ended midway: no [DONE] before the connection closed");
  }

  /** The text and model of a non-streamed completion. */
  #completion(reply: CompletionJson): ChatResult {
    if (reply?.error !== undefined) {
      throw this.#http.error(`the API sent an error: ${describe(reply)}`);
    }
    const content = reply?.choices?.[0]?.message?.content;
    if (typeof content !== "string") {
      throw this.#http.error("bad reply: no choices[0].message.content");
    }
    const model = typeof reply.model === "string" && reply.model !== ""
      ? reply.model
      : this.#options.model;
    return { text: content, model };
  }

  #parse(data: string): CompletionJson {
    try {
      return JSON.parse(data) as CompletionJson;
    } catch {
      throw this.#http.error(`bad reply: not JSON: ${data.slice(0, 200)}`);
    }
  }
}

/** The error text of a chunk or reply carrying `error`. */
function describe(reply: CompletionJson): string {
  const error = reply.error;
  if (typeof error === "string") return error;
  if (typeof error?.message === "string") return error.message;
  return JSON.stringify(error);
}
