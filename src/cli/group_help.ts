/**
 * @module The --help of a command group (`engram brains`, `engram tokens`): every subcommand with
 * its usage, summary and own options, so one screen answers "what can I pass?".
 */
import { type CommandSpec, GLOBAL_OPTIONS, optionRows } from "./args.ts";

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
