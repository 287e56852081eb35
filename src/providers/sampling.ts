/**
 * @module MCP sampling as a chat model: the connected client's own model answers through
 * `sampling/createMessage`. Used only when the client advertises the `sampling` capability, and
 * only inside that client's session (a background job has no client to ask).
 */
import { EngramError } from "../core/errors.ts";
import type { ChatModel, ChatRequest, ChatResult } from "./types.ts";

/** The parameters engram sends in `sampling/createMessage`. */
export interface SamplingParams {
  messages: { role: "user" | "assistant"; content: { type: "text"; text: string } }[];
  systemPrompt?: string;
  maxTokens: number;
  temperature?: number;
  includeContext: "none";
}

/** Sends `sampling/createMessage` to the client (the MCP server's `createMessage`). */
export type CreateMessage = (
  params: SamplingParams,
  options: { signal?: AbortSignal },
) => Promise<{ model?: string; content: unknown }>;

/** The client's model, through MCP sampling. */
export class SamplingProvider implements ChatModel {
  readonly name: string;
  #create: CreateMessage;
  #maxTokens: number;

  constructor(options: { name?: string; createMessage: CreateMessage; maxTokens: number }) {
    this.name = options.name ?? "sampling";
    this.#create = options.createMessage;
    this.#maxTokens = options.maxTokens;
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const system = request.json
      ? `${request.system ?? ""}\nReply with a single JSON object and nothing else.`.trim()
      : request.system;
    let result: { model?: string; content: unknown };
    try {
      result = await this.#create({
        messages: request.messages.map((m) => ({
          role: m.role,
          content: { type: "text", text: m.content },
        })),
        ...(system ? { systemPrompt: system } : {}),
        maxTokens: request.maxTokens ?? this.#maxTokens,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        includeContext: "none",
      }, { signal: request.signal });
    } catch (err) {
      if (request.signal?.aborted) throw err;
      throw new EngramError(
        "provider_unavailable",
        `provider "${this.name}" (the client's model via MCP sampling) failed: ${
          (err as Error).message
        }`,
        { cause: err },
      );
    }
    const text = textOf(result.content);
    if (text === null) {
      throw new EngramError(
        "provider_unavailable",
        `provider "${this.name}" (MCP sampling) returned no text content`,
      );
    }
    // Sampling does not stream: the whole reply is one delta.
    if (text) await request.onDelta?.(text);
    return { text, model: result.model ?? "sampling" };
  }
}

function textOf(content: unknown): string | null {
  const blocks = Array.isArray(content) ? content : [content];
  const texts = blocks
    .filter((b): b is { type: "text"; text: string } =>
      typeof b === "object" && b !== null && (b as { type?: unknown }).type === "text" &&
      typeof (b as { text?: unknown }).text === "string"
    )
    .map((b) => b.text);
  return texts.length ? texts.join("") : null;
}
