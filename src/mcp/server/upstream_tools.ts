/**
 * @module Approved upstream tools, prompts and resource templates offered through engram's own
 * server (docs/upstream.md#exposure): the port the server factory takes, and one tool call's path —
 * tier check, the upstream call with progress and cancellation passed through, and the audit row —
 * shaped like engram's own tools' errors. Prompts and reads are in upstream_offers.ts.
 */
import type { EngramError } from "../../core/errors.ts";
import type { CallerContext, Tier } from "../../core/types.ts";
import type {
  CallToolResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  ResourceTemplate,
  Tool,
} from "./session/mcp_protocol.ts";
import type { AuditContext } from "./audit.ts";
import { auditedToolCall } from "./tool_dispatch.ts";
import { toolErrorCode } from "./tool_error.ts";

/**
 * The key of a result's `_meta` that says whose it is: `{server, tool | prompt | template, trust}`
 * of the upstream that sent it (docs/upstream.md#exposure).
 */
export const UPSTREAM_META = "engram/upstream";

/** An exposed tool or prompt as the server sees it. */
export interface OfferedTool {
  /** The name agents call it by (a template's: its exposed URI template). */
  exposed: string;
  tier: Tier;
}

/** A read of a URI under an exposed resource template. */
export interface OfferedRead {
  template: OfferedTool;
}

/** Which of a session's lists changed. */
export interface OfferedLists {
  tools: boolean;
  prompts: boolean;
  resources: boolean;
}

/** Who asks, and how to stop: what every upstream request of an agent carries. */
export interface UpstreamRequestOptions {
  caller: CallerContext;
  signal: AbortSignal;
}

/** A progress notification of an upstream call, passed on to the agent. */
export interface UpstreamProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * What the agent's own client can answer while an upstream tool it called runs: an upstream's
 * elicitation or sampling request is passed on to it (only when it declared the capability).
 */
export interface DownstreamClient {
  elicit?: (params: ElicitRequestParams, signal: AbortSignal) => Promise<ElicitResult>;
  sample?: (
    params: CreateMessageRequestParams,
    signal: AbortSignal,
  ) => Promise<CreateMessageResult>;
}

/**
 * What the server needs of the process's exposed upstream capabilities. `T`, `P` and `R` are what
 * `find`, `findPrompt` and `findResource` give and the calls take back: the server uses what it
 * found in the same turn, so it is never stale.
 */
export interface UpstreamTools<
  T extends OfferedTool = OfferedTool,
  P extends OfferedTool = OfferedTool,
  R extends OfferedRead = OfferedRead,
> {
  /** The tools/list entries a session at `tier` is offered (never waits on an upstream). */
  tools(tier: Tier): Tool[];
  /** An exposed tool by its exposed name, whatever its tier. */
  find(name: string): T | undefined;
  /** Why an upstream tool (or prompt) is no longer offered under `name` (it changed, was revoked, …). */
  withdrawn(name: string, kind?: "tool" | "prompt"): string | undefined;
  /** Calls it for `caller`. */
  call(
    tool: T,
    args: Record<string, unknown>,
    options: UpstreamRequestOptions & {
      onprogress?: (p: UpstreamProgress) => void;
      downstream?: DownstreamClient;
    },
  ): Promise<CallToolResult>;
  /** The prompts/list entries a session at `tier` is offered. */
  prompts(tier: Tier): Prompt[];
  /** An exposed prompt by its exposed name, whatever its tier. */
  findPrompt(name: string): P | undefined;
  /** Gets it for `caller`. */
  getPrompt(
    prompt: P,
    args: Record<string, string>,
    options: UpstreamRequestOptions,
  ): Promise<GetPromptResult>;
  /** The resources/templates/list entries a session at `tier` is offered. */
  templates(tier: Tier): ResourceTemplate[];
  /** The exposed template a URI falls under, whatever its tier. */
  findResource(uri: string): R | undefined;
  /** Reads it for `caller`. */
  readResource(read: R, options: UpstreamRequestOptions): Promise<ReadResourceResult>;
  /** Calls `listener` with the lists that changed; returns the function that stops it. */
  onChange(listener: (changed: OfferedLists) => void): () => void;
}

/** One call of an exposed tool: tier check, call, audit. Never throws; errors are results. */
export function dispatchUpstreamTool<T extends OfferedTool>(
  upstream: UpstreamTools<T, OfferedTool, OfferedRead>,
  tool: T,
  o: {
    args: Record<string, unknown> | undefined;
    ctx: AuditContext;
    signal: AbortSignal;
    progress?: (p: UpstreamProgress) => Promise<void>;
    downstream?: DownstreamClient;
  },
): Promise<CallToolResult> {
  return auditedToolCall(o.ctx, { name: tool.exposed, args: o.args, tier: tool.tier }, async () => {
    const progress = o.progress;
    // Progress is passed on in order, and all of it before the result: the agent's SDK drops a
    // progress notification that arrives after the response to its request — or read in the same
    // chunk as it, so the result also waits a turn of the event loop after the last one.
    let forwarded: Promise<void> | undefined;
    const onprogress = progress
      ? (p: UpstreamProgress) => {
        forwarded = (forwarded ?? Promise.resolve()).then(() => progress(p)).catch(() => {});
      }
      : undefined;
    let result: CallToolResult;
    try {
      result = await upstream.call(tool, o.args ?? {}, {
        caller: o.ctx.caller,
        signal: o.signal,
        downstream: o.downstream,
        ...(onprogress ? { onprogress } : {}),
      });
    } finally {
      if (forwarded) {
        await forwarded;
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    }
    // An upstream's own error result carries no engram code.
    return { result, errorCode: result.isError ? toolErrorCode(result) ?? "upstream_error" : null };
  });
}

/**
 * The result of calling a tool the session may not call — outside its tool selection, or an
 * upstream tool that was withdrawn (its approval lapsed) — with its audit row.
 */
export function refusedToolResult(
  error: EngramError,
  o: { name: string; args: unknown; ctx: AuditContext },
): Promise<CallToolResult> {
  return auditedToolCall(o.ctx, { name: o.name, args: o.args }, () => Promise.reject(error));
}
