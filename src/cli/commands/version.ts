/** @module `engram version`. */
import { locateConfig } from "../../config/config_file.ts";
import { toEngramError } from "../../core/errors.ts";
import { PROTOCOL_VERSION, VERSION } from "../../version.ts";
import { type CommandSpec, configFlags, helpText, parseCommand, type Parsed } from "../args.ts";
import type { CommandContext } from "../context.ts";

/** Usage of `engram version`. */
export const VERSION_SPEC: CommandSpec = {
  name: "version",
  usage: "engram version [--json]",
  summary:
    "Print the engram version, the MCP protocol revision and the runtime; --json adds the config file in use.",
  options: {
    json: {
      type: "boolean",
      help: "print as JSON, with config: { file, path, rule } (engram config path explains it)",
    },
  },
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
      config: configOf(args.values, ctx),
    });
  } else ctx.out.line(`engram ${VERSION} (MCP ${PROTOCOL_VERSION}, deno ${Deno.version.deno})`);
  return Promise.resolve(0);
}

/** The config file in use; a --config or $ENGRAM_CONFIG naming nothing is reported, not fatal. */
function configOf(values: Parsed["values"], ctx: CommandContext) {
  try {
    const location = locateConfig(configFlags(values), { env: ctx.env, cwd: ctx.cwd });
    return { file: location.file, path: location.path, rule: location.rule };
  } catch (err) {
    return { file: null, error: toEngramError(err).message };
  }
}
