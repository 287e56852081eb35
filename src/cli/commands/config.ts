/**
 * @module `engram config path`: which config file engram reads and which rule of the search order
 * (docs/configuration.md#where-the-config-is-read-from) chose it — or, with none, where one
 * would be read from. It only looks: the file is not loaded, so a broken file can still be found.
 */
import { type ConfigLocation, locateConfig, RULE_WORDS } from "../../config/config_file.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { asksForHelp, groupHelpText, type GroupSpec, unknownSubcommand } from "../group_help.ts";
import { table } from "../output.ts";

/** Usage of `engram config path`. */
export const CONFIG_PATH_SPEC: CommandSpec = {
  name: "config path",
  usage: "engram config path [--json]",
  summary:
    "Print the config file engram reads (or, with none, where it would read one from) and why: the rule of the search order that chose it (--config, $ENGRAM_CONFIG, ./config/engram.yaml, $XDG_CONFIG_HOME/engram/engram.yaml, none), and every place looked at. The file is not loaded.",
  options: {
    json: { type: "boolean", help: "print { file, path, rule, reason, searched } as JSON" },
  },
  positionals: [0, 0],
};

const CONFIG_USAGE = "engram config path [--json]";

/** The config group: its help lists every subcommand with its options. */
const CONFIG_GROUP: GroupSpec = {
  name: "config",
  usage: CONFIG_USAGE,
  summary: "Show which config file engram uses.",
  subcommands: [CONFIG_PATH_SPEC],
};

/** Dispatches `engram config path`. */
export async function configCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "path") return await configPath(rest, ctx);
  if (sub === undefined) {
    ctx.out.warn(groupHelpText(CONFIG_GROUP));
    return 2;
  }
  if (asksForHelp(sub)) {
    ctx.out.line(groupHelpText(CONFIG_GROUP));
    return 0;
  }
  throw unknownSubcommand(CONFIG_GROUP, sub);
}

function configPath(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, CONFIG_PATH_SPEC, ctx.out);
  if (!args) return Promise.resolve(0);
  const location = locateConfig(configFlags(args.values), { env: ctx.env, cwd: ctx.cwd });
  if (args.values.json) ctx.out.json(locationJson(location));
  else printLocation(ctx, location);
  return Promise.resolve(0);
}

/** The location as `engram config path --json` prints it. */
export function locationJson(location: ConfigLocation) {
  return {
    file: location.file,
    path: location.path,
    rule: location.rule,
    reason: location.reason,
    searched: location.searched,
  };
}

function printLocation(ctx: CommandContext, location: ConfigLocation): void {
  // The first line is the path alone, so `$(engram config path | head -1)` is a file name.
  ctx.out.line(location.path);
  ctx.out.line(
    location.file === null
      ? `not there: ${location.reason}; to configure engram, create it (copy config/engram.example.yaml from engram's repository to start)`
      : `in use: ${location.reason}`,
  );
  ctx.out.line("");
  ctx.out.line("searched, in order:");
  ctx.out.line(table([
    ["rule", "path", "state"],
    ...location.searched.map((p) => [
      RULE_WORDS[p.rule],
      p.path ?? "-",
      p.path === null
        ? (p.rule === "flag" ? "not given" : "not set")
        : p.path === location.file
        ? "in use"
        : p.exists
        ? "exists, not used"
        : "missing",
    ]),
  ]));
}
