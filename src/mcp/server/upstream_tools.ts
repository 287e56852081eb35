/**
 * @module Approved upstream tools offered through engram's own server (docs/upstream.md#exposure): the
 * port the server factory takes, and one call's path — tier check, the upstream call with progress
 * and cancellation passed through, and the audit row — shaped like engram's own tools' errors.
 */
import type { EngramError } from "../../core/errors.ts";
import type { CallerContext, Tier } from "../../core/types.ts";
import type {
  CallToolResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Tool,
} from "../sdk.ts";
import type { AuditContext } from "./audit.ts";
import { auditedToolCall } from "./tool_dispatch.ts";
import { toolErrorCode } from "./tool_error.ts";

/** An exposed tool as the server sees it. */
export interface OfferedTool {
  /** The name agents call it by. */
  exposed: string;
  tier: Tier;
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
 * What the server needs of the process's exposed upstream tools. `T` is what `find` gives and
 * `call` takes back: the server calls a tool it found in the same turn, so it is never stale.
 */
export interface UpstreamTools<T extends OfferedTool = OfferedTool> {
  /** The tools/list entries a session at `tier` is offered (never waits on an upstream). */
  tools(tier: Tier): Tool[];
  /** An exposed tool by its exposed name, whatever its tier. */
  find(name: string): T | undefined;
  /** Why an upstream tool is no longer offered under `name` (it changed, was revoked, …). */
  withdrawn(name: string): string | undefined;
  /** Calls it for `caller`. */
  call(
    tool: T,
    args: Record<string, unknown>,
    options: {
      caller: CallerContext;
      signal: AbortSignal;
      onprogress?: (p: UpstreamProgress) => void;
      downstream?: DownstreamClient;
    },
  ): Promise<CallToolResult>;
  /** Calls `listener` when the offered tools change; returns the function that stops it. */
  onChange(listener: () => void): () => void;
}

/** One call of an exposed tool: tier check, call, audit. Never throws; errors are results. */
export function dispatchUpstreamTool<T extends OfferedTool>(
  upstream: UpstreamTools<T>,
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
