/**
 * @module `engram mcp call NAME TOOL` and `engram mcp read-resource NAME URI`: the operator calling
 * an upstream tool (approved ones; `--unapproved` to try one under review) or reading a resource,
 * with progress on a terminal. Upstream text is printed with control characters shown, never
 * obeyed; `--json` prints the result exactly as the server sent it.
 */
import type { CallToolResult, ReadResourceResult } from "../../../mcp/sdk.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { EXIT } from "../../exit_codes.ts";
import { terminalProgress } from "../../progress.ts";
import { checkApproved, readJsonArguments, withLiveSession } from "./capability_use.ts";

/** Usage of `engram mcp call`. */
export const MCP_CALL_SPEC: CommandSpec = {
  name: "mcp call",
  usage: "engram mcp call NAME TOOL [--args JSON | --args-file FILE] [--unapproved] [--json]",
  summary:
    "Call tool TOOL of upstream server NAME with the given arguments (a JSON object) and print the result; a progress bar shows on a terminal. The tool must be approved as it is listed now (engram mcp approvals); --unapproved calls it anyway, for reviewing it. An error result exits 1.",
  options: {
    args: { type: "string", help: "JSON  the arguments, a JSON object (default {})" },
    "args-file": {
      type: "string",
      help: "FILE  read the arguments from a JSON file (- for stdin)",
    },
    unapproved: { type: "boolean", help: "call a tool that is not approved as listed now" },
    json: { type: "boolean", help: "print the result as JSON, exactly" },
  },
  positionals: [2, 2],
};

/** Usage of `engram mcp read-resource`. */
export const MCP_READ_RESOURCE_SPEC: CommandSpec = {
  name: "mcp read-resource",
  usage: "engram mcp read-resource NAME URI [--json]",
  summary:
    "Read resource URI of upstream server NAME and print its text (binary contents are described; --json gives them base64-encoded, exactly as sent).",
  options: { json: { type: "boolean", help: "print the result as JSON, exactly" } },
  positionals: [2, 2],
};

/** Runs `engram mcp call`. */
export async function mcpCall(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_CALL_SPEC, ctx.out);
  if (!args) return 0;
  const [name, tool] = args.positionals;
  const { value: toolArgs } = await readJsonArguments(args.values, ctx, {
    spec: MCP_CALL_SPEC,
    of: "tool",
  });
  const json = args.values.json === true;
  return await withLiveSession(ctx, configFlags(args.values), {
    name,
    run: async ({ u, session, signal }) => {
      await checkApproved(u, session, {
        kind: "tool",
        name: tool,
        listed: await session.listTools({ signal }),
        unapproved: args.values.unapproved === true,
      });
      const progress = terminalProgress(ctx, `${session.name} ${tool}`, json);
      let result: CallToolResult;
      try {
        result = await session.callTool(tool, toolArgs, {
          signal,
          onprogress: (p) => progress.update(p.progress, p.total ?? p.progress + 1),
        });
      } finally {
        progress.done();
      }
      if (json) ctx.out.json(result);
      else printContent(ctx, result.content ?? [], result.structuredContent);
      if (result.isError) {
        ctx.out.warn(`upstream ${session.name} tool ${tool} returned an error result`);
        return EXIT.error;
      }
      return EXIT.ok;
    },
  });
}

/** Runs `engram mcp read-resource`. */
export async function mcpReadResource(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_READ_RESOURCE_SPEC, ctx.out);
  if (!args) return 0;
  const [name, uri] = args.positionals;
  return await withLiveSession(ctx, configFlags(args.values), {
    name,
    run: async ({ session, signal }) => {
      const result: ReadResourceResult = await session.readResource(uri, { signal });
      if (args.values.json) ctx.out.json(result);
      else {
        for (const c of result.contents) {
          if ("text" in c && typeof c.text === "string") {
            ctx.out.write(c.text.endsWith("\n") ? c.text : `${c.text}\n`);
          } else {
            const blob = (c as { blob?: string }).blob ?? "";
            ctx.out.line(
              `[${c.mimeType ?? "binary"} content of ${c.uri}, ${
                base64Bytes(blob)
              } bytes; use --json for its base64]`,
            );
          }
        }
      }
      return EXIT.ok;
    },
  });
}

/** The byte length of base64 data. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor(data.length * 3 / 4) - padding;
}

/** Prints a result's content blocks for a person. */
function printContent(
  ctx: CommandContext,
  content: CallToolResult["content"],
  structured: unknown,
): void {
  for (const block of content) {
    if (block.type === "text") ctx.out.line(block.text);
    else if (block.type === "image" || block.type === "audio") {
      ctx.out.line(
        `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`,
      );
    } else if (block.type === "resource_link") ctx.out.line(`[resource link ${block.uri}]`);
    else if (block.type === "resource") {
      const r = block.resource as { uri: string; text?: string };
      ctx.out.line(r.text ?? `[embedded resource ${r.uri}]`);
    }
  }
  if (structured !== undefined) {
    ctx.out.line("structured content:");
    ctx.out.line(JSON.stringify(structured, null, 2));
  }
}
