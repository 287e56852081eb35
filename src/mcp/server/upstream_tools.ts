/**
 * @module Approved upstream tools offered through engram's own server (CLIENT.md "Exposure"): the
 * port the server factory takes, and one call's path — tier check, the upstream call with progress
 * and cancellation passed through, and the audit row — shaped like engram's own tools' errors.
 */
import { EngramError } from "../../core/errors.ts";
import { concealInternal } from "../../core/internal_errors.ts";
import { type CallerContext, type Tier, tierAllows } from "../../core/types.ts";
import type {
  CallToolResult,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Tool,
} from "../sdk.ts";
import { auditCall, type AuditContext } from "./audit.ts";
import { toolErrorCode, toolErrorResult } from "./tool_error.ts";

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

/** What the server needs of the process's exposed upstream tools. */
export interface UpstreamTools {
  /** The tools/list entries a session at `tier` is offered (never waits on an upstream). */
  tools(tier: Tier): Tool[];
  /** An exposed tool by its exposed name, whatever its tier. */
  find(name: string): OfferedTool | undefined;
  /** Why an upstream tool is no longer offered under `name` (it changed, was revoked, …). */
  withdrawn(name: string): string | undefined;
  /** Calls it for `caller`. */
  call(
    tool: OfferedTool,
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
export async function dispatchUpstreamTool(
  upstream: UpstreamTools,
  tool: OfferedTool,
  o: {
    args: unknown;
    ctx: AuditContext;
    signal: AbortSignal;
    progress?: (p: UpstreamProgress) => Promise<void>;
    downstream?: DownstreamClient;
  },
): Promise<CallToolResult> {
  const started = performance.now();
  const { caller } = o.ctx;
  let result: CallToolResult;
  try {
    if (!tierAllows(caller.tier, tool.tier)) {
      throw new EngramError(
        "forbidden",
        `tool ${tool.exposed} needs tier ${tool.tier}; this session runs at tier ${caller.tier}`,
      );
    }
    if (
      o.args !== undefined &&
      (typeof o.args !== "object" || o.args === null || Array.isArray(o.args))
    ) {
      throw new EngramError("invalid_argument", `arguments of ${tool.exposed} must be an object`);
    }
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
    try {
      result = await upstream.call(tool, (o.args ?? {}) as Record<string, unknown>, {
        caller,
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
  } catch (err) {
    result = toolErrorResult(
      concealInternal(err, { logger: o.ctx.serverLogger, what: `tool ${tool.exposed}` }),
    );
  }
  await auditCall(o.ctx, {
    kind: "tool",
    name: tool.exposed,
    args: o.args,
    errorCode: result.isError ? toolErrorCode(result) ?? "upstream_error" : null,
    started,
  });
  return result;
}

/**
 * The result of calling a tool the session may not call — outside its tool selection, or an
 * upstream tool that was withdrawn (its approval lapsed) — with its audit row.
 */
export async function refusedToolResult(
  error: EngramError,
  o: { name: string; args: unknown; ctx: AuditContext },
): Promise<CallToolResult> {
  const started = performance.now();
  const result = toolErrorResult(error);
  await auditCall(o.ctx, {
    kind: "tool",
    name: o.name,
    args: o.args,
    errorCode: error.code,
    started,
  });
  return result;
}
