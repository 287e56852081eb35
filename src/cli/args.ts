/** @module Command-line parsing on node:util parseArgs, with usage errors that say how to get help. */
import { parseArgs } from "node:util";
import { EngramError } from "../core/errors.ts";
import { editDistance } from "../core/text/edit_distance.ts";
import type { ConfigFlags } from "../config/load.ts";
import { parseInput } from "../core/validate.ts";
import type { z } from "zod";

/** One option of a command. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** Shown in --help, e.g. "SLUG  brain slug or id". */
  help: string;
}

/** A command's parser spec. */
export interface CommandSpec {
  /** The command words after `engram`, e.g. "brains create". */
  name: string;
  /** e.g. "engram search QUERY [options]". */
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** How many positionals: [min, max]. */
  positionals: [number, number];
}

/**
 * A command's input validated with `schema` (core's `parseInput`), a bad field named as the user
 * typed it: the flag that fills it (`top_k` → `--top-k`, or as `renames` says: `kinds` →
 * `--kind`), without a repeated flag's index; a field no flag fills (a positional) keeps its name.
 */
export function commandInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  o: { spec: CommandSpec; renames?: Record<string, string> },
): z.output<S> {
  const renames = o.renames ?? {};
  return parseInput(schema, value, o.spec.name, {
    label: (path) => {
      const [field, ...rest] = path.map(String);
      const dashed = field.replaceAll("_", "-");
      const flag = renames[field] ??
        (dashed in o.spec.options || dashed in GLOBAL_OPTIONS ? `--${dashed}` : field);
      return flag.startsWith("--")
        ? [flag, ...rest.filter((p) => !/^\d+$/.test(p))].join(".")
        : [flag, ...rest].join(".");
    },
  });
}

/** Options every command accepts. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  config: {
    type: "string",
    help:
      "FILE  config file (else $ENGRAM_CONFIG, ./config/engram.yaml, $XDG_CONFIG_HOME/engram/engram.yaml)",
  },
  data: {
    type: "string",
    help: "DIR  data directory holding engram.db (else $ENGRAM_DATA_DIR, $XDG_DATA_HOME/engram)",
  },
  "log-level": { type: "string", help: "LEVEL  debug|info|notice|warning|error (stderr)" },
  help: { type: "boolean", short: "h", help: "show this help" },
};

/** Parsed arguments. */
export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  help: boolean;
}

/** Parses argv for a command; unknown options and wrong arity are `invalid_argument` (exit 2). */
export function parseCommand(argv: string[], spec: CommandSpec): Parsed {
  const options = { ...spec.options, ...GLOBAL_OPTIONS };
  const config = {
    args: argv,
    options: Object.fromEntries(
      Object.entries(options).map((
        [k, o],
      ) => [k, {
        type: o.type,
        multiple: o.multiple === true,
        ...(o.short ? { short: o.short } : {}),
      }]),
    ),
    allowPositionals: true,
  };
  // Parsed leniently first so each mistake gets engram's own message rather than parseArgs' text.
  for (const token of parseArgs({ ...config, strict: false, tokens: true }).tokens) {
    if (token.kind === "option") checkOption(token, { spec, options });
  }
  let parsed;
  try {
    parsed = parseArgs({ ...config, strict: true });
  } catch (err) {
    throw usageError(spec, (err as Error).message.split("\n")[0]);
  }
  const help = parsed.values.help === true;
  const n = parsed.positionals.length;
  if (!help && (n < spec.positionals[0] || n > spec.positionals[1])) {
    throw usageError(
      spec,
      n < spec.positionals[0]
        ? "missing argument"
        : `unexpected argument "${parsed.positionals[spec.positionals[1]]}"`,
    );
  }
  return { values: parsed.values as Parsed["values"], positionals: parsed.positionals, help };
}

/** One option token from the lenient parse. */
interface OptionToken {
  name: string;
  rawName: string;
  value?: string;
  inlineValue?: boolean;
}

/** Refuses an unknown option, a value option without its value, or a value on a switch. */
function checkOption(
  token: OptionToken,
  o: { spec: CommandSpec; options: Record<string, OptionSpec> },
): void {
  const option = Object.hasOwn(o.options, token.name) ? o.options[token.name] : undefined;
  const where = `for engram ${o.spec.name}`;
  if (!option) {
    const hint = closestOption(token.name, Object.keys(o.options));
    throw usageError(
      o.spec,
      `unknown option ${token.rawName} ${where}${hint ? ` (did you mean --${hint}?)` : ""}`,
    );
  }
  const flag = token.rawName === `--${token.name}`
    ? token.rawName
    : `${token.rawName} (--${token.name})`;
  if (option.type === "boolean") {
    if (token.value !== undefined) {
      throw usageError(o.spec, `option ${flag} ${where} takes no value, got "${token.value}"`);
    }
    return;
  }
  const arg = option.help.split("  ")[0];
  if (token.value === undefined) {
    throw usageError(o.spec, `option ${flag} ${where} needs a value (${arg})`);
  }
  if (token.inlineValue === false && token.value.startsWith("-") && token.value !== "-") {
    throw usageError(
      o.spec,
      `option ${flag} ${where} needs a value (${arg}), got the option "${token.value}"; write --${token.name}=${token.value} if that is the value`,
    );
  }
}

/** The option name a misspelt `name` most likely meant (a prefix, or at most two edits away). */
function closestOption(name: string, names: string[]): string | undefined {
  if (name.length < 2) return undefined;
  const prefixed = names.filter((n) => n.startsWith(name));
  if (prefixed.length === 1) return prefixed[0];
  const scored = names.map((n) => ({ n, d: editDistance(name, n) })).filter((x) => x.d <= 2);
  scored.sort((a, b) => a.d - b.d);
  return scored[0]?.n;
}

/** A usage error: the message, where to get help, and the usage line. */
export function usageError(spec: CommandSpec, message: string): EngramError {
  return new EngramError(
    "invalid_argument",
    `${message}; see: engram ${spec.name} --help\nusage: ${spec.usage}`,
  );
}

/** The --help text of a command. */
export function helpText(spec: CommandSpec): string {
  const rows = optionRows({ ...spec.options, ...GLOBAL_OPTIONS });
  return `${spec.summary}\n\nusage: ${spec.usage}\n\noptions:\n${rows.join("\n")}\n`;
}

/** One aligned help line per option, indented by `indent` spaces (2 unless given). */
export function optionRows(options: Record<string, OptionSpec>, indent = 2): string[] {
  return Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}`;
    const [arg, ...desc] = o.type === "string" ? o.help.split("  ") : ["", o.help];
    return `${" ".repeat(indent)}${`${flag} ${arg}`.padEnd(30)} ${desc.join("  ") || o.help}${
      o.multiple ? " (repeatable)" : ""
    }`;
  });
}

/** The config-related flags from parsed values. */
export function configFlags(values: Parsed["values"]): ConfigFlags {
  return {
    config: values.config as string | undefined,
    data: values.data as string | undefined,
    logLevel: values["log-level"] as string | undefined,
  };
}

/** An integer option, or a usage error naming it. */
export function intOption(
  spec: CommandSpec,
  values: Parsed["values"],
  name: string,
): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== "string" || !/^-?\d+$/.test(raw)) {
    throw usageError(spec, `--${name} must be an integer, got "${raw}"`);
  }
  return Number(raw);
}

/** Parses argv; on `--help` prints the command's help to stdout and returns null (exit 0). */
export function parseOrHelp(
  argv: string[],
  spec: CommandSpec,
  out: { line(text: string): void },
): Parsed | null {
  const args = parseCommand(argv, spec);
  if (!args.help) return args;
  out.line(helpText(spec));
  return null;
}

/** The `--brain` option most commands take. */
export const BRAIN_OPTION: OptionSpec = {
  type: "string",
  help: "SLUG  brain slug or id (else the default brain)",
};
