/** @module The chat-model interface the HTTP providers and MCP sampling implement. */

/** One chat turn sent to a model. */
export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

/** A chat completion request. */
export interface ChatRequest {
  system?: string;
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
  /** Ask for a JSON object as the whole reply (OpenAI `response_format`; a prompt hint elsewhere). */
  json?: boolean;
  signal?: AbortSignal;
  /** When set, the reply is streamed and each text delta is passed here, in order. */
  onDelta?: (delta: string) => void | Promise<void>;
}

/** A finished completion. */
export interface ChatResult {
  text: string;
  /** The model that answered, as the API reported it (else the configured one). */
  model: string;
}

/** A chat model: an OpenAI-compatible endpoint, the Anthropic API, or the client's model via sampling. */
export interface ChatModel {
  /** The provider's configured name (e.g. "openai", "local-ollama"), used in errors and logs. */
  readonly name: string;
  /**
   * Completes a chat. Failures throw EngramError: `provider_unavailable` (unreachable, timeout,
   * 5xx, bad reply, stream cut midway) or `rate_limited` (429 after the retries), with a message
   * naming the provider, its URL and the cause.
   */
  chat(request: ChatRequest): Promise<ChatResult>;
}
