/**
 * @module `engram mcp get-prompt NAME PROMPT`: the operator getting an upstream prompt (approved
 * ones; `--unapproved` to try one under review), with the same flags and approval rules as
 * `engram mcp call` (docs/cli.md#engram-mcp-get-prompt). The messages are upstream text: printed
 * with control characters shown, never obeyed; `--json` prints the result exactly as sent.
 */
import { resolve } from "node:path";
import { EngramError } from "../../../core/errors.ts";
import { nearestNames } from "../../../core/text/edit_distance.ts";
import { pinListed, serverIdentity } from "../../../mcp/client/approvals/capability_pins.ts";
import { strictJsonError } from "../../../mcp/client/import/json_with_comments.ts";
import { findEntry } from "../../../mcp/client/upstream_catalog.ts";
import type { UpstreamSession } from "../../../mcp/client/session/upstream_session.ts";
import type { GetPromptResult } from "../../../mcp/sdk.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { EXIT } from "../../exit_codes.ts";
import { connectUpstreams, type UpstreamSetup, withUpstreams } from "../../upstreams.ts";
import { approvalBook } from "../../upstream_wiring.ts";

/** Usage of `engram mcp get-prompt`. */
export const MCP_GET_PROMPT_SPEC: CommandSpec = {
  name: "mcp get-prompt",
  usage:
    "engram mcp get-prompt NAME PROMPT [--args JSON | --args-file FILE] [--unapproved] [--json]",
  summary:
    "Get prompt PROMPT of upstream server NAME with the given arguments (a JSON object of strings) and print its messages. The prompt must be approved as it is listed now (engram mcp approvals); --unapproved gets it anyway, for reviewing it.",
  options: {
    args: { type: "string", help: "JSON  the arguments, a JSON object of strings (default {})" },
    "args-file": {
      type: "string",
      help: "FILE  read the arguments from a JSON file (- for stdin)",
    },
    unapproved: { type: "boolean", help: "get a prompt that is not approved as listed now" },
    json: { type: "boolean", help: "print the result as JSON, exactly" },
  },
  positionals: [2, 2],
};

/** Runs `engram mcp get-prompt`. */
export async function mcpGetPrompt(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_GET_PROMPT_SPEC, ctx.out);
  if (!args) return 0;
  const [name, prompt] = args.positionals;
  const promptArgs = await readArguments(args.values, ctx);
  return await withUpstreams(ctx, configFlags(args.values), { mode: "mcp-live" }, async (u) => {
    const entry = findEntry(u.catalog, name);
    const connections = connectUpstreams({ ...u, facts: u.facts! }, ctx, { interactive: true });
    try {
      const session = await connections.session(entry.config.name);
      await checkApproved(u, session, { prompt, unapproved: args.values.unapproved === true });
      const result = await session.getPrompt(prompt, promptArgs);
      if (args.values.json) ctx.out.json(result);
      else printMessages(ctx, result);
      return EXIT.ok;
    } finally {
      await connections.closeAll();
    }
  });
}

/** The prompt's arguments from --args or --args-file: a JSON object of strings, or a usage error. */
async function readArguments(
  values: Record<string, unknown>,
  ctx: CommandContext,
): Promise<Record<string, string>> {
  if (values.args !== undefined && values["args-file"] !== undefined) {
    throw usageError(MCP_GET_PROMPT_SPEC, "give --args or --args-file, not both");
  }
  let text = values.args as string | undefined;
  let where = "--args";
  const file = values["args-file"] as string | undefined;
  if (file !== undefined) {
    where = file === "-" ? "stdin" : resolve(ctx.cwd, file);
    try {
      text = file === "-" ? await new Response(ctx.stdin).text() : await Deno.readTextFile(where);
    } catch (err) {
      throw new EngramError(
        "invalid_argument",
        `cannot read --args-file ${where}: ${(err as Error).message}`,
      );
    }
  }
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(
      MCP_GET_PROMPT_SPEC,
      `${where} is not JSON: ${strictJsonError(text) ?? "not a JSON value"}`,
    );
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw usageError(
      MCP_GET_PROMPT_SPEC,
      `${where} must be a JSON object of the prompt's arguments`,
    );
  }
  // MCP prompt arguments are strings.
  const notString = Object.entries(value).find(([, v]) => typeof v !== "string");
  if (notString) {
    throw usageError(
      MCP_GET_PROMPT_SPEC,
      `${where}: argument ${notString[0]} must be a string (prompt arguments are strings), e.g. {"${
        notString[0]
      }": "${String(notString[1])}"}`,
    );
  }
  return value as Record<string, string>;
}

/**
 * The prompt exists upstream (else `not_found` with the nearest names) and is approved as listed
 * now (else `forbidden` saying what to do), unless `--unapproved`.
 */
async function checkApproved(
  u: UpstreamSetup,
  session: UpstreamSession,
  o: { prompt: string; unapproved: boolean },
): Promise<void> {
  const prompts = await session.listPrompts();
  const listed = prompts.find((p) => p.name === o.prompt);
  const server = session.name;
  if (!listed) {
    const near = nearestNames(o.prompt, prompts.map((p) => p.name));
    throw new EngramError(
      "not_found",
      `upstream ${server} has no prompt "${o.prompt}"${
        near.length ? `; nearest: ${near.join(", ")}` : ""
      }; list its prompts with: engram mcp discover ${server}`,
    );
  }
  if (o.unapproved) return;
  const live = await pinListed("prompt", listed, await serverIdentity(session.server));
  const approval = await approvalBook(u).find({ server, kind: "prompt", name: o.prompt });
  if (approval?.state === "approved" && approval.pin === live.pin) return;
  const why = !approval
    ? "is not approved"
    : approval.state === "revoked"
    ? "was revoked"
    : "changed since it was approved (its approval lapsed)";
  throw new EngramError(
    "forbidden",
    `upstream ${server} prompt ${o.prompt} ${why}; review it with: engram mcp approvals diff ${server} ${o.prompt} --kind prompt, approve it with: engram mcp approvals approve ${server} ${o.prompt} --kind prompt, or get it once with --unapproved`,
  );
}

/** Prints a prompt's messages for a person: each under its role. */
function printMessages(ctx: CommandContext, result: GetPromptResult): void {
  if (result.description) ctx.out.line(`# ${result.description}`);
  for (const m of result.messages) {
    ctx.out.line(`[${m.role}]`);
    const c = m.content;
    if (c.type === "text") ctx.out.line(c.text);
    else if (c.type === "image" || c.type === "audio") ctx.out.line(`[${c.type} ${c.mimeType}]`);
    else if (c.type === "resource_link") ctx.out.line(`[resource link ${c.uri}]`);
    else if (c.type === "resource") {
      const r = c.resource as { uri: string; text?: string };
      ctx.out.line(r.text ?? `[embedded resource ${r.uri}]`);
    }
  }
}
