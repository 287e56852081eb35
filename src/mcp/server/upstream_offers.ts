/**
 * @module Approved upstream prompts and resource templates among engram's own
 * (docs/upstream.md#exposure): what prompts/list and resources/templates/list add, and one
 * prompts/get or resources/read of an upstream's — tier check, the upstream request, the audit
 * row — failing as JSON-RPC errors like engram's own prompts and resources.
 */
import { EngramError } from "../../core/errors.ts";
import { tierAllows } from "../../core/types.ts";
import { auditCall, type AuditContext, type AuditedCall } from "./audit.ts";
import { auditCodeOf, toMcpError } from "./mcp_errors.ts";
import type { MorePrompts } from "./prompts/prompts.ts";
import type { MoreResources } from "./resources/resources.ts";
import type { OfferedRead, OfferedTool, UpstreamTools } from "./upstream_tools.ts";

/** The upstream prompts of a session, for registerPrompts. */
export function upstreamPrompts<P extends OfferedTool>(
  upstream: UpstreamTools<OfferedTool, P, OfferedRead>,
  ctx: AuditContext,
): MorePrompts {
  return {
    list: () => upstream.prompts(ctx.caller.tier),
    get: (name, args, signal) => {
      const prompt = upstream.findPrompt(name);
      const withdrawn = prompt ? undefined : upstream.withdrawn(name, "prompt");
      if (!prompt && withdrawn === undefined) return undefined;
      return audited(ctx, { kind: "prompt", name, args }, () => {
        if (!prompt) throw new EngramError("forbidden", withdrawn!);
        allowed(ctx, { what: `prompt ${name}`, tier: prompt.tier });
        return upstream.getPrompt(prompt, args, { caller: ctx.caller, signal });
      });
    },
  };
}

/** The upstream resource templates of a session, for registerResources. */
export function upstreamResources<R extends OfferedRead>(
  upstream: UpstreamTools<OfferedTool, OfferedTool, R>,
  ctx: AuditContext,
): MoreResources {
  return {
    templates: () => upstream.templates(ctx.caller.tier),
    read: (uri, signal) => {
      const read = upstream.findResource(uri);
      if (!read) return undefined;
      // The template, not the URI: a URI can carry what the agent asked for, which is content.
      const name = read.template.exposed;
      return audited(ctx, { kind: "resource", name, args: { uri }, uri }, () => {
        allowed(ctx, { what: `resource template ${name}`, tier: read.template.tier });
        return upstream.readResource(read, { caller: ctx.caller, signal });
      });
    },
  };
}

/** Refuses a capability above the session's tier. */
function allowed(ctx: AuditContext, o: { what: string; tier: OfferedTool["tier"] }): void {
  if (tierAllows(ctx.caller.tier, o.tier)) return;
  throw new EngramError(
    "forbidden",
    `${o.what} needs tier ${o.tier}; this session runs at tier ${ctx.caller.tier}`,
  );
}

/** Runs `fn` with its audit row; a failure becomes a JSON-RPC error. */
async function audited<T>(
  ctx: AuditContext,
  call: Pick<AuditedCall, "kind" | "name" | "args"> & { uri?: string },
  fn: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const { uri, ...row } = call;
  try {
    const out = await fn();
    await auditCall(ctx, { ...row, errorCode: null, started });
    return out;
  } catch (err) {
    await auditCall(ctx, { ...row, errorCode: auditCodeOf(err), started });
    throw toMcpError(err, {
      serverLogger: ctx.serverLogger,
      what: `${call.kind} ${call.name}`,
      ...(uri !== undefined ? { uri } : {}),
    });
  }
}
