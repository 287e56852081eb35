/**
 * @module Answering what an upstream asks of engram (docs/upstream.md#nested-requests): `roots/list`
 * from `mcp.allowed_file_roots`; `sampling/createMessage` through the host's model, only when the
 * server's sampling policy allows it and never for more tokens than it allows; and
 * `elicitation/create` (form and URL) through the host's way of asking the user — a terminal
 * prompt, or the client connected to engram. A capability is declared only when it can be
 * answered; a request for one that is not gets a clear error rather than "method not found".
 */
import { pathToFileURL } from "node:url";
import type { SamplingPolicy } from "../../../config/mcp_servers.ts";
import {
  type ClientCapabilities,
  type CreateMessageRequestParams,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  type ElicitRequestParams,
  ElicitRequestSchema,
  type ElicitResult,
  ErrorCode,
  ListRootsRequestSchema,
} from "../../sdk.ts";
import { type Client } from "../../sdk_client.ts";
import { withSchemaDefaults } from "./form_defaults.ts";

/** What a nested-request answerer learns besides the request. */
export interface NestedContext {
  /** The upstream server asking. */
  server: string;
  /** Aborted when the upstream cancels or the session ends. */
  signal: AbortSignal;
}

/** The host's model: answers an upstream's sampling request (maxTokens already capped). */
export type SampleFn = (
  params: CreateMessageRequestParams,
  context: NestedContext,
) => Promise<CreateMessageResult>;

/** The host's way of asking the user: answers an elicitation (form or URL mode). */
export type ElicitFn = (
  params: ElicitRequestParams,
  context: NestedContext,
) => Promise<ElicitResult>;

/** What the host embedding the client can answer; anything left out is declined. */
export interface NestedHost {
  /** `mcp.allowed_file_roots` (absolute paths); none: roots are not offered. */
  roots?: readonly string[];
  /** The model to sample with; none: sampling is not offered. */
  sample?: SampleFn;
  /** How to ask the user; none: elicitation is not offered. */
  elicit?: ElicitFn;
  /** The elicitation modes `elicit` can serve; default both. */
  elicitModes?: { form: boolean; url: boolean };
}

/** How elicitations are answered on one connection. */
export interface AnswerOptions {
  /** Runs a person's answer with the connection's request timers paused; default: just runs it. */
  whileAsking?: <T>(ask: () => Promise<T>) => Promise<T>;
  /** How long a person may take (`mcp.elicitation_timeout_ms`); then the form is cancelled. */
  elicitationTimeoutMs?: number;
}

/** A server as nested requests see it. */
export interface NestedServer {
  name: string;
  sampling: SamplingPolicy;
}

/** The client capabilities to declare to `server`: only what the host will actually answer. */
export function clientCapabilities(host: NestedHost, server: NestedServer): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (host.roots?.length) capabilities.roots = { listChanged: true };
  if (host.sample && server.sampling.allowed) capabilities.sampling = {};
  const modes = host.elicitModes ?? { form: true, url: true };
  if (host.elicit && (modes.form || modes.url)) {
    capabilities.elicitation = {
      ...(modes.form ? { form: { applyDefaults: true } } : {}),
      ...(modes.url ? { url: {} } : {}),
    };
  }
  return capabilities;
}

/**
 * Installs the answerers on a client built with `clientCapabilities(host, server)` (the SDK
 * refuses a handler for a capability not declared), and a fallback that declines the rest.
 */
export function answerNestedRequests(
  client: Client,
  host: NestedHost,
  server: NestedServer,
  options: AnswerOptions = {},
) {
  const declared = clientCapabilities(host, server);
  if (declared.roots) {
    const roots = (host.roots ?? []).map((path) => ({
      uri: pathToFileURL(path).href,
      name: path.split("/").filter(Boolean).at(-1) ?? path,
    }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  }
  if (declared.sampling && host.sample) {
    const sample = host.sample;
    client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      const params = {
        ...request.params,
        maxTokens: Math.min(request.params.maxTokens, server.sampling.max_tokens),
      };
      try {
        return await sample(params, { server: server.name, signal: extra.signal });
      } catch (error) {
        throw rpcError(
          ErrorCode.InternalError,
          `engram could not sample for upstream ${JSON.stringify(server.name)}: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      }
    });
  }
  if (declared.elicitation && host.elicit) {
    const elicit = host.elicit;
    const whileAsking = options.whileAsking ?? ((ask) => ask());
    const limit = options.elicitationTimeoutMs;
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = request.params;
      const result = await whileAsking(() =>
        withinLimit(
          (signal) => elicit(params, { server: server.name, signal }),
          { signal: extra.signal, limitMs: limit },
        )
      );
      if (params.mode !== "url" && result.action === "accept") {
        const form = params as Extract<ElicitRequestParams, { requestedSchema: unknown }>;
        return { ...result, content: withSchemaDefaults(form.requestedSchema, result.content) };
      }
      return result;
    });
  }
  client.fallbackRequestHandler = (request) => {
    throw rpcError(ErrorCode.MethodNotFound, declineMessage(request.method, server));
  };
}

/**
 * A person's answer, or `cancel` once `limitMs` passed without one (the asker is told through the
 * signal it was given, so a terminal prompt can say so).
 */
async function withinLimit(
  ask: (signal: AbortSignal) => Promise<ElicitResult>,
  o: { signal: AbortSignal; limitMs?: number },
): Promise<ElicitResult> {
  if (o.limitMs === undefined) return await ask(o.signal);
  const expired = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<ElicitResult>((resolve) => {
    timer = setTimeout(() => {
      // Settled before the asker hears of it, so whatever the asker does then comes too late.
      resolve({ action: "cancel" });
      expired.abort(`no answer within ${o.limitMs} ms (mcp.elicitation_timeout_ms)`);
    }, o.limitMs);
  });
  try {
    return await Promise.race([ask(AbortSignal.any([o.signal, expired.signal])), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why engram does not answer `method` for this server, and how to change that. */
function declineMessage(method: string, server: NestedServer): string {
  const who = `upstream ${JSON.stringify(server.name)}`;
  switch (method) {
    case "sampling/createMessage":
      if (!server.sampling.allowed) {
        return `engram declined sampling/createMessage from ${who}: sampling is off for this server; the operator can allow it with sampling: {allowed: true} in its mcp_servers entry`;
      }
      return `engram declined sampling/createMessage from ${who}: no model is available to sample with in this engram process`;
    case "elicitation/create":
      return `engram declined elicitation/create from ${who}: nobody can be asked here (no terminal prompt, and the connected client did not declare elicitation)`;
    case "roots/list":
      return `engram declined roots/list from ${who}: no mcp.allowed_file_roots are configured`;
    default:
      return `engram does not implement ${method} (asked by ${who})`;
  }
}

/**
 * An error the SDK sends as `{code, message}` unchanged: an McpError would prefix its message
 * with "MCP error -326xx:", which the upstream then prefixes again.
 */
function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}
