/**
 * @module A ChatModel for the Anthropic Messages API (`POST /v1/messages`). Streams by the API's
 * event sequence: message_start, content_block_start, content_block_delta (text_delta),
 * content_block_stop, message_delta, message_stop, with ping and error events interleaved.
 */
import { HttpClient } from "./http_client.ts";
import { parseSse } from "./sse_parser.ts";
import type { ChatModel, ChatRequest, ChatResult } from "./types.ts";

/** Options for `AnthropicProvider`. */
export interface AnthropicOptions {
  /** The configured provider name, used in errors and logs. */
  name: string;
  /** API root without the version segment (default "https://api.anthropic.com"). */
  baseUrl?: string;
  /** Model id, e.g. "claude-sonnet-4-5". */
  model: string;
  /** Sent as `x-api-key`. */
  apiKey: string;
  /** Bounds the wait for headers and between stream events (default 60000 ms). */
  timeoutMs?: number;
  /** Retries on 408 / 429 / 5xx (529 overloaded included) before the reply starts (default 2). */
  maxRetries?: number;
  /** First retry delay in ms (default 500). */
  retryBaseMs?: number;
  /** `max_tokens` when a request sets none; the API requires one (default 1024). */
  maxTokens?: number;
}

/** The API version this client speaks. */
const ANTHROPIC_VERSION = "2023-06-01";

/** Appended to the system prompt for `json: true`; the API has no JSON mode. */
const JSON_HINT = "Reply with a single JSON object and nothing else: no prose, no code fences.";

/** The fields read from a Messages reply or stream event. */
interface MessageJson {
  type?: unknown;
  model?: unknown;
  content?: { type?: unknown; text?: unknown }[];
  message?: { model?: unknown };
  delta?: { type?: unknown; text?: unknown };
  error?: { type?: unknown; message?: unknown };
}

/** Chat completions against the Anthropic Messages API. */
export class AnthropicProvider implements ChatModel {
  /** The configured provider name. */
  readonly name: string;
  readonly #options: AnthropicOptions;
  readonly #baseUrl: string;
  readonly #http: HttpClient;

  constructor(options: AnthropicOptions) {
    this.name = options.name;
    this.#options = options;
    this.#baseUrl = (options.baseUrl ?? "https://api.anthropic.com").replace(/\/+$/, "");
    this.#http = new HttpClient({
      name: options.name,
      baseUrl: this.#baseUrl,
      headers: { "x-api-key": options.apiKey, "anthropic-version": ANTHROPIC_VERSION },
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      retryBaseMs: options.retryBaseMs,
    });
  }

  /** Completes a chat; streams deltas to `request.onDelta` when set. */
  async chat(request: ChatRequest): Promise<ChatResult> {
    const system = [request.system, request.json ? JSON_HINT : undefined]
      .filter((part) => part)
      .join("\n\n");
    const body: Record<string, unknown> = {
      model: this.#options.model,
      max_tokens: request.maxTokens ?? this.#options.maxTokens ?? 1024,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    };
    if (system) body.system = system;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    const url = `${this.#baseUrl}/v1/messages`;
    if (!request.onDelta) {
      const reply = await this.#http.postJson(url, body, { signal: request.signal });
      return this.#message(reply as MessageJson);
    }
    body.stream = true;
    const reply = await this.#http.postStream(url, body, { signal: request.signal });
    return await this.#readStream(reply.body, request.onDelta);
  }

  /** Reads the event stream until message_stop, passing each text delta on. */
  async #readStream(
    body: ReadableStream<Uint8Array>,
    onDelta: (delta: string) => void | Promise<void>,
  ): Promise<ChatResult> {
    let text = "";
    let model = this.#options.model;
    for await (const event of parseSse(body)) {
      const type = event.event ?? "";
      if (type === "ping") continue;
      const data = this.#parse(event.data);
      const kind = type || (typeof data.type === "string" ? data.type : "");
      if (kind === "error") {
        throw this.#http.error(`stream ended midway: the API sent an error: ${describe(data)}`);
      }
      if (kind === "message_stop") return { text, model };
      if (kind === "message_start" && typeof data.message?.model === "string") {
        model = data.message.model;
      }
      if (kind === "content_block_delta" && data.delta?.type === "text_delta") {
        const delta = data.delta.text;
        if (typeof delta === "string" && delta !== "") {
          text += delta;
          await onDelta(delta);
        }
      }
      // Other events (thinking or tool deltas, block starts and stops, message_delta, and new
      // types the API versioning policy allows) carry no reply text.
    }
    throw this.#http.error("stream ended midway: no message_stop before the connection closed");
  }

  /** The joined text blocks and model of a non-streamed reply. */
  #message(reply: MessageJson): ChatResult {
    if (reply?.type === "error") {
      throw this.#http.error(`the API sent an error: ${describe(reply)}`);
    }
    if (!Array.isArray(reply?.content)) throw this.#http.error("bad reply: no content blocks");
    const text = reply.content
      .filter((block) => block?.type === "text" && typeof block.text === "string")
      .map((block) => block.text as string)
      .join("");
    const model = typeof reply.model === "string" && reply.model !== ""
      ? reply.model
      : this.#options.model;
    return { text, model };
  }

  #parse(data: string): MessageJson {
    try {
      return JSON.parse(data) as MessageJson;
    } catch {
      throw this.#http.error(`bad reply: not JSON: ${data.slice(0, 200)}`);
    }
  }
}

/** "type: message" of an error event or body. */
function describe(data: MessageJson): string {
  const type = typeof data.error?.type === "string" ? data.error.type : "error";
  const message = typeof data.error?.message === "string" ? data.error.message : "";
  return message ? `${type}: ${message}` : type;
}
