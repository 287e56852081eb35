/**
 * @module The --help of a command group (`engram brains`, `engram tokens`): every subcommand with
 * its usage, summary and own options, so one screen answers "what can I pass?" — and the usage
 * error for a word that is none of its subcommands, with the one it was most likely meant as.
 */
import { meantName } from "../core/text/edit_distance.ts";
import type { EngramError } from "../core/errors.ts";
import { type CommandSpec, GLOBAL_OPTIONS, optionRows, usageError } from "./args.ts";

/** A command group: its usage line and summary, and the subcommands it dispatches to. */
export interface GroupSpec {
  /** The command word, e.g. "brains". */
  name: string;
  usage: string;
  summary: string;
  subcommands: CommandSpec[];
}

/** The group's help: summary, usage, each subcommand with its options, then the global options. */
export function groupHelpText(group: GroupSpec): string {
  const sections = group.subcommands.map((spec) => {
    const summary = spec.summary.split("\n").map((l) => (l ? `    ${l}` : "")).join("\n");
    const options = optionRows(spec.options, 4);
    return `  ${spec.usage}\n${summary}${options.length ? `\n${options.join("\n")}` : ""}`;
  });
  return `${group.summary}\n\nusage: ${group.usage}\n\ncommands:\n\n${sections.join("\n\n")}\n\n` +
    `options:\n${optionRows(GLOBAL_OPTIONS).join("\n")}\n\n` +
    `every command takes these options as well as its own; see also: engram ${group.name} COMMAND --help\n`;
}

/** Whether a group's first word asks for its help: `--help`, `-h` or `help`, as `engram` takes. */
export function asksForHelp(word: string | undefined): boolean {
  return word === "--help" || word === "-h" || word === "help";
}

/** The subcommand words of a group (`mcp keys generate` → `keys`), each once, in order. */
export function subcommandWords(group: GroupSpec): string[] {
  const skip = group.name.split(" ").length;
  return [...new Set(group.subcommands.map((s) => s.name.split(" ")[skip]))];
}

/**
 * `unknown brains command "lsit"; did you mean "list"?` — the nearest of `names` suggested only
 * when it is close (a typo), so an unrelated word gets none.
 */
export function unknownCommandMessage(
  kind: string,
  word: string,
  names: readonly string[],
): string {
  const meant = meantName(word, names);
  return `unknown ${kind} command "${word}"${meant ? `; did you mean "${meant}"?` : ""}`;
}

/** The usage error (exit 2) for `engram GROUP WORD` when WORD is none of the group's subcommands. */
export function unknownSubcommand(group: GroupSpec, word: string): EngramError {
  const spec: CommandSpec = {
    name: group.name,
    usage: group.usage,
    summary: group.summary,
    options: {},
    positionals: [0, 0],
  };
  const kind = group.name.split(" ").at(-1)!;
  return usageError(spec, unknownCommandMessage(kind, word, subcommandWords(group)));
}
