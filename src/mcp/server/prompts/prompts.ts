/** @module prompts/list and prompts/get: ready-to-send user messages built from brain content. */
import {
  GetPromptRequestSchema,
  type GetPromptResult,
  ListPromptsRequestSchema,
  type Prompt,
} from "../session/mcp_protocol.ts";
import type { SessionServer } from "../session/session_server.ts";
import type { z } from "zod";
import { tierAllows } from "../../../core/types.ts";
import { auditCall, type AuditContext } from "../audit.ts";
import { auditCodeOf, invalidParams, toMcpError } from "../mcp_errors.ts";
import { paginate } from "../pagination.ts";
import { PROMPTS } from "./prompt_catalogue.ts";
import { handleStrictly } from "../strict_handler.ts";

/** Longest prompt name an audit row records for an unknown prompt. */
const MAX_AUDIT_NAME = 128;

/** Prompts offered besides engram's own (approved upstream ones: upstream_offers.ts). */
export interface MorePrompts {
  list(): Prompt[];
  /** Gets prompt `name` when it is one of these (audited there); undefined otherwise. */
  get(
    name: string,
    args: Record<string, string>,
    signal: AbortSignal,
  ): Promise<GetPromptResult> | undefined;
}

/** Registers prompts/list and prompts/get for the prompts the caller's tier allows (and `more`). */
export function registerPrompts(
  server: SessionServer,
  ctx: AuditContext,
  o: { more?: MorePrompts } = {},
): void {
  const visible = PROMPTS.filter((p) => tierAllows(ctx.caller.tier, p.tier));
  const byName = new Map(visible.map((p) => [p.name, p]));
  const listing: Prompt[] = visible.map((p) => ({
    name: p.name,
    title: p.title,
    description: p.description,
    arguments: p.arguments,
  }));

  handleStrictly(server, ListPromptsRequestSchema, (request) => {
    const all = o.more ? [...listing, ...o.more.list()] : listing;
    const { page, nextCursor } = paginate(all, request.params?.cursor);
    return { prompts: page, ...(nextCursor ? { nextCursor } : {}) };
  });

  handleStrictly(server, GetPromptRequestSchema, async (request, extra) => {
    const { name, arguments: rawArgs } = request.params;
    const other = o.more?.get(name, rawArgs ?? {}, extra.signal);
    if (other) return await other;
    const started = performance.now();
    let brainId: string | undefined;
    try {
      const prompt = byName.get(name);
      if (!prompt) {
        throw invalidParams(
          `unknown prompt "${name}"; available: ${visible.map((p) => p.name).join(", ")}`,
        );
      }
      const args = parseArguments(prompt.name, prompt.input, rawArgs ?? {});
      const built = await prompt.build(ctx, args);
      brainId = built.brainId;
      await auditCall(ctx, {
        kind: "prompt",
        name,
        args: rawArgs,
        errorCode: null,
        brainId,
        started,
      });
      return {
        description: built.description,
        messages: [{ role: "user" as const, content: { type: "text" as const, text: built.text } }],
      };
    } catch (err) {
      const code = auditCodeOf(err);
      await auditCall(ctx, {
        kind: "prompt",
        name: name.slice(0, MAX_AUDIT_NAME),
        args: rawArgs,
        errorCode: code,
        brainId,
        started,
      });
      throw toMcpError(err, { serverLogger: ctx.serverLogger, what: `prompt ${name}` });
    }
  });
}

/** Checks prompt arguments; an empty string counts as absent (clients send unset ones that way). */
function parseArguments(name: string, schema: z.ZodType, raw: Record<string, string>): unknown {
  const present = Object.fromEntries(Object.entries(raw).filter(([, v]) => v.trim() !== ""));
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => {
    if (i.code === "unrecognized_keys") return `unknown argument(s) ${i.keys.join(", ")}`;
    const arg = i.path.join(".");
    if (!arg) return i.message;
    return i.code === "invalid_type" && present[arg] === undefined
      ? `${arg} is required`
      : `${arg}: ${i.message}`;
  });
  throw invalidParams(`invalid arguments for prompt ${name}: ${problems.join("; ")}`);
}
