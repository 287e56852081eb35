/**
 * @module Answering an upstream server's `sampling/createMessage` with engram's provider stack: the
 * configured HTTP models in order, and — with none, or all down — the extractive engine, which
 * answers the last user message from the conversation's earlier text (no model, no guessing).
 */
import { EngramError } from "../../../core/errors.ts";
import type { AnswerSource } from "../../../core/ports/language_model.ts";
import { ExtractiveEngine } from "../../../providers/extractive/engine.ts";
import type { ChatMessage, ChatModel } from "../../../providers/types.ts";
import type { CreateMessageRequestParams, CreateMessageResult } from "../../sdk.ts";

/** One sampling request answered by `stack`; `signal` cancels it. */
export async function sampleWithStack(
  stack: { chats: readonly ChatModel[] },
  params: CreateMessageRequestParams,
  options: { signal?: AbortSignal } = {},
): Promise<CreateMessageResult> {
  const messages = params.messages.map((m): ChatMessage => ({
    role: m.role,
    content: textOf(m.content),
  }));
  const errors: string[] = [];
  for (const chat of stack.chats) {
    try {
      const result = await chat.chat({
        system: params.systemPrompt,
        messages,
        maxTokens: params.maxTokens,
        temperature: params.temperature,
        signal: options.signal,
      });
      return assistantText(result.text, result.model);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      errors.push(`${chat.name}: ${(err as Error).message}`);
    }
  }
  return await extractive(messages, { signal: options.signal, errors });
}

/** The last user message answered from the text of the messages before it. */
async function extractive(
  messages: ChatMessage[],
  o: { signal?: AbortSignal; errors: string[] },
): Promise<CreateMessageResult> {
  const last = messages.findLastIndex((m) => m.role === "user");
  if (last < 0) {
    throw new EngramError(
      "invalid_argument",
      "a sampling request needs a user message to answer",
    );
  }
  const sources: AnswerSource[] = messages.slice(0, last).map((m, i) => ({
    n: i + 1,
    chunk_id: `message-${i + 1}`,
    document_id: `message-${i + 1}`,
    title: `${m.role} message ${i + 1}`,
    path: "",
    text: m.content,
  }));
  const answer = await new ExtractiveEngine().answer({
    question: messages[last].content,
    sources,
    signal: o.signal,
  });
  return assistantText(answer.text, answer.provider);
}

/** A finished answer to a sampling request. */
function assistantText(text: string, model: string): CreateMessageResult {
  return { role: "assistant", content: { type: "text", text }, model, stopReason: "endTurn" };
}

/** The text of a sampling message's content (images and audio are described, not sent). */
function textOf(content: unknown): string {
  const parts = Array.isArray(content) ? content : [content];
  return parts.map((p) => {
    const part = p as { type?: string; text?: string };
    return part.type === "text" ? part.text ?? "" : `[${part.type ?? "content"} omitted]`;
  }).join("\n");
}
