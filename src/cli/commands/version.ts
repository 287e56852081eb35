/** @module `engram version`. */
import { PROTOCOL_VERSION, VERSION } from "../../version.ts";
import { type CommandSpec, helpText, parseCommand } from "../args.ts";
import type { CommandContext } from "../context.ts";

/** Usage of `engram version`. */
export const VERSION_SPEC: CommandSpec = {
  name: "version",
  usage: "engram version [--json]",
  summary: "Print the engram version, the MCP protocol revision and the runtime.",
  options: { json: { type: "boolean", help: "print as JSON" } },
  positionals: [0, 0],
};

/** Prints version information. */
export function versionCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseCommand(argv, VERSION_SPEC);
  if (args.help) ctx.out.line(helpText(VERSION_SPEC));
  else if (args.values.json) {
    ctx.out.json({
      engram: VERSION,
      protocol: PROTOCOL_VERSION,
      deno: Deno.version.deno,
      sqlite: "node:sqlite",
    });
  } else ctx.out.line(`engram ${VERSION} (MCP ${PROTOCOL_VERSION}, deno ${Deno.version.deno})`);
  return Promise.resolve(0);
}
