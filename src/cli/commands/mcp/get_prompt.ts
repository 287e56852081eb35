/**
 * @module `engram mcp get-prompt NAME PROMPT`: the operator getting an upstream prompt (approved
 * ones; `--unapproved` to try one under review), with the same flags and approval rules as
 * `engram mcp call` (docs/cli.md#engram-mcp-get-prompt). The messages are upstream text: printed
 * with control characters shown, never obeyed; `--json` prints the result exactly as sent.
 */
import type { GetPromptResult } from "../../../mcp/sdk.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { EXIT } from "../../exit_codes.ts";
import { checkApproved, readJsonArguments, withLiveSession } from "./capability_use.ts";

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
  const promptArgs = await readPromptArguments(args.values, ctx);
  return await withLiveSession(ctx, configFlags(args.values), {
    name,
    run: async ({ u, session, signal }) => {
      await checkApproved(u, session, {
        kind: "prompt",
        name: prompt,
        listed: await session.listPrompts({ signal }),
        unapproved: args.values.unapproved === true,
      });
      const result = await session.getPrompt(prompt, promptArgs, { signal });
      if (args.values.json) ctx.out.json(result);
      else printMessages(ctx, result);
      return EXIT.ok;
    },
  });
}

/** The prompt's arguments: a JSON object of strings (MCP prompt arguments are strings). */
async function readPromptArguments(
  values: Record<string, unknown>,
  ctx: CommandContext,
): Promise<Record<string, string>> {
  const { value, where } = await readJsonArguments(values, ctx, {
    spec: MCP_GET_PROMPT_SPEC,
    of: "prompt",
  });
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
