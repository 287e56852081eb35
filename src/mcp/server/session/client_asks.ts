/**
 * @module Sampling and elicitation requests to the client, checked as the MCP SDK's `Server`
 * checks them (docs/architecture.md#what-engram-writes-where-a-library-exists): the capability the
 * client declared, matching tool_use/tool_result blocks, and a form's answer against its schema.
 * The JSON Schema validator (the SDK's ajv) is loaded on the first form answer, not at start-up.
 */
import type { z } from "zod";
import {
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  ErrorCode,
  McpError,
  replySchemas,
} from "./mcp_protocol.ts";
import type { OutgoingRequest, RequestOptions } from "./outgoing_requests.ts";

/** What these requests need of the session. */
export interface AskingSession {
  getClientCapabilities(): ClientCapabilities | undefined;
  request<S extends z.ZodType>(
    request: OutgoingRequest,
    schema: S,
    options?: RequestOptions,
  ): Promise<z.output<S>>;
}

/** A content block of a sampling message, as far as these checks read it. */
type Block = { type: string; id?: string; toolUseId?: string };

/** `sampling/createMessage`; throws before sending when the request is malformed. */
export async function createMessage(
  session: AskingSession,
  params: CreateMessageRequestParams,
  options?: RequestOptions,
): Promise<CreateMessageResult | CreateMessageResultWithTools> {
  checkSampling(session.getClientCapabilities(), params);
  const schemas = await replySchemas();
  const request = { method: "sampling/createMessage", params };
  return params.tools
    ? await session.request(request, schemas.CreateMessageResultWithToolsSchema, options)
    : await session.request(request, schemas.CreateMessageResultSchema, options);
}

function checkSampling(client: ClientCapabilities | undefined, params: CreateMessageRequestParams) {
  if ((params.tools || params.toolChoice) && !client?.sampling?.tools) {
    throw new Error("Client does not support sampling tools capability.");
  }
  const messages = params.messages;
  if (messages.length === 0) return;
  const blocks = (m: (typeof messages)[number] | undefined): Block[] =>
    m === undefined ? [] : (Array.isArray(m.content) ? m.content : [m.content]) as Block[];
  const last = blocks(messages[messages.length - 1]);
  const previous = blocks(messages[messages.length - 2]);
  const hasToolUse = previous.some((c) => c.type === "tool_use");
  if (last.some((c) => c.type === "tool_result")) {
    if (last.some((c) => c.type !== "tool_result")) {
      throw new Error("The last message must contain only tool_result content if any is present");
    }
    if (!hasToolUse) {
      throw new Error("tool_result blocks are not matching any tool_use from the previous message");
    }
  }
  if (hasToolUse) {
    const uses = new Set(previous.filter((c) => c.type === "tool_use").map((c) => c.id));
    const results = new Set(last.filter((c) => c.type === "tool_result").map((c) => c.toolUseId));
    if (uses.size !== results.size || ![...uses].every((id) => results.has(id))) {
      throw new Error(
        "ids of tool_result blocks and tool_use blocks from previous message do not match",
      );
    }
  }
}

/** `elicitation/create` in form mode (the default) or URL mode. */
export async function elicitInput(
  session: AskingSession,
  params: ElicitRequestFormParams | ElicitRequestURLParams,
  options?: RequestOptions,
): Promise<ElicitResult> {
  const elicitation = session.getClientCapabilities()?.elicitation;
  if (params.mode === "url" ? !elicitation?.url : !elicitation?.form) {
    throw new Error(`Client does not support ${params.mode ?? "form"} elicitation.`);
  }
  const { ElicitResultSchema } = await replySchemas();
  if (params.mode === "url") {
    return await session.request(
      { method: "elicitation/create", params },
      ElicitResultSchema,
      options,
    );
  }
  const form = params.mode === "form" ? params : { ...params, mode: "form" as const };
  const result = await session.request(
    { method: "elicitation/create", params: form },
    ElicitResultSchema,
    options,
  );
  if (result.action === "accept" && result.content && form.requestedSchema) {
    await checkAnswer(form.requestedSchema, result.content);
  }
  return result;
}

/** Throws -32602 when a form's answer does not match the schema it was asked with. */
async function checkAnswer(schema: object, content: unknown): Promise<void> {
  let outcome: { valid: boolean; errorMessage?: string };
  try {
    // The SDK's validator, with ajv and its formats: loaded only once a form is answered.
    const { AjvJsonSchemaValidator } = await import("../../sdk.ts");
    // A validator per answer: a form is answered at a person's pace, and ajv compiles in ~3.5 ms.
    outcome = new AjvJsonSchemaValidator().getValidator(schema)(content);
  } catch (err) {
    throw new McpError(
      ErrorCode.InternalError,
      `Error validating elicitation response: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (!outcome.valid) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Elicitation response content does not match requested schema: ${outcome.errorMessage}`,
    );
  }
}
