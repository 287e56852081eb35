/**
 * @module The signed-in token acting through the console: every action runs as a tool call of that
 * token — its tier, its brains, its tool list — and writes the same audit row, with the token's
 * client, transport `http` and the console session's public id (docs/console.md#security-model).
 * Memory actions are engram's own tools, dispatched exactly as `/mcp` dispatches them; actions the
 * tools do not have (version diffs, restore, uploads, tokens, approvals) are `console_*` calls.
 */
import { EngramError, type ErrorCode } from "../../core/errors.ts";
import { type CallerContext, type Tier, tierAllows } from "../../core/types.ts";
import type { ServerDeps } from "../../mcp/server/factory.ts";
import type { CallToolResult } from "../../mcp/sdk.ts";
import { auditedToolCall, dispatchTool } from "../../mcp/server/tool_dispatch.ts";
import type { ToolContext } from "../../mcp/server/tool.ts";
import { MEMORY_TOOLS } from "../../mcp/server/tools/index.ts";
import { notSelected, selectTools } from "../../mcp/server/tool_selection.ts";
import { toolErrorCode } from "../../mcp/server/tool_error.ts";
import type { TokenGrant } from "../auth.ts";

const TOOLS = new Map(MEMORY_TOOLS.map((t) => [t.name, t]));

/** What the console's sessions act with: a session's MCP deps without a caller. */
export type ConsoleMcpDeps = Omit<ServerDeps, "caller" | "clientRoots">;

/** One console request's caller. */
export class ConsoleActor {
  /** The token's grant, as verified on this request. */
  readonly grant: TokenGrant;
  /** The caller every action runs as. */
  readonly caller: CallerContext;
  /** The session deps actions run with (the memory service, ports, providers). */
  readonly deps: ConsoleMcpDeps;
  readonly #signal: AbortSignal;

  constructor(
    deps: ConsoleMcpDeps,
    o: { grant: TokenGrant; sessionId: string; signal?: AbortSignal },
  ) {
    this.deps = deps;
    this.grant = o.grant;
    this.#signal = o.signal ?? new AbortController().signal;
    this.caller = {
      clientId: o.grant.clientId,
      transport: "http",
      tier: o.grant.tier,
      brains: o.grant.brains,
      sessionId: o.sessionId,
    };
  }

  /** The same caller, its tools cancelled by `signal` (a streamed answer whose reader went away). */
  withSignal(signal: AbortSignal): ConsoleActor {
    return new ConsoleActor(this.deps, {
      grant: this.grant,
      sessionId: this.caller.sessionId!,
      signal,
    });
  }

  /** Whether the token's tier reaches `tier` (what the pages show; the actions check again). */
  can(tier: Tier): boolean {
    return tierAllows(this.grant.tier, tier);
  }

  /** Whether the token may approve and revoke upstream capabilities: admin tier and the operator flag. */
  get operator(): boolean {
    return this.grant.tier === "admin" && this.grant.operator === true;
  }

  /** Whether the token's tool list (and the config's `server.tools`) lets it call `tool`. */
  allows(tool: string): boolean {
    return this.#selection()?.allows(tool) ?? true;
  }

  /**
   * Runs one of engram's memory tools as `/mcp` would, and returns its structured result; a tool
   * error is thrown as an EngramError with the tool's code and message.
   */
  async tool<T>(
    name: string,
    args: Record<string, unknown>,
    o: { progress?: (message: string) => Promise<void> } = {},
  ): Promise<T> {
    const tool = TOOLS.get(name);
    if (!tool) throw new EngramError("internal", `no memory tool ${name}`);
    const ctx = this.#toolContext(o.progress);
    const selection = this.#selection();
    if (selection && !selection.allows(name)) {
      const refused = notSelected(name, selection);
      return await this.action(name, { tier: "read", args }, () => Promise.reject(refused));
    }
    return structured<T>(await dispatchTool(tool, args, ctx));
  }

  /**
   * Runs a console action that is not a memory tool, audited as `name` under the caller's tier
   * (refused below `tier`); `uses` names the memory tool it stands on, which the token's tool list
   * must allow.
   */
  async action<T>(
    name: string,
    o: { tier: Tier; args: unknown; uses?: string },
    run: () => Promise<T>,
    brainOf?: (out: T) => string | undefined,
  ): Promise<T> {
    let out: T | undefined;
    const result = await auditedToolCall(this.#toolContext(), {
      name,
      args: o.args,
      tier: o.tier,
      tierFix: ` (sign in with ${o.tier === "admin" ? "an" : "a"} ${o.tier} token)`,
    }, async () => {
      const selection = this.#selection();
      if (o.uses && selection && !selection.allows(o.uses)) throw notSelected(o.uses, selection);
      out = await run();
      return {
        result: { content: [{ type: "text", text: "ok" }] },
        brainId: brainOf?.(out),
      };
    });
    const code = toolErrorCode(result);
    if (code !== undefined) throw errorOf(result, code);
    return out as T;
  }

  #selection() {
    return selectTools(...(this.deps.toolSelection?.lists ?? []), this.grant.tools);
  }

  #toolContext(progress?: (message: string) => Promise<void>): ToolContext {
    const d = this.deps;
    return {
      service: d.service,
      sessions: d.sessions,
      jobQueue: d.jobQueue,
      locks: d.locks,
      audit: d.audit,
      caller: this.caller,
      logger: d.logger,
      serverLogger: d.logger,
      signal: this.#signal,
      ingest: d.ingest,
      model: d.providers.background(),
      jobs: d.jobs,
      consolidate: d.consolidate,
      ...(progress ? { progress } : {}),
    };
  }
}

/** The structured result of a successful tool call, or the EngramError of a failed one. */
function structured<T>(result: CallToolResult): T {
  const code = toolErrorCode(result);
  if (code !== undefined) throw errorOf(result, code);
  return result.structuredContent as T;
}

function errorOf(result: CallToolResult, code: string): EngramError {
  const first = result.content[0];
  const text = first && first.type === "text" ? first.text : code;
  const message = text.startsWith(`${code}: `) ? text.slice(code.length + 2) : text;
  return new EngramError(code as ErrorCode, message);
}
