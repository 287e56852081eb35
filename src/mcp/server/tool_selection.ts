/**
 * @module A session's tool selection: which tools it lists and may call, by name or glob
 * (`memory_search,memory_pack,mcp_files_*`), so an agent's context holds only the tool definitions
 * it needs. Selections stack — the config's `server.tools`, a token's own list — and a tool must be
 * in every one of them. Upstream tools exposed as `mcp_<server>_<tool>` are selected the same way.
 */
import { EngramError } from "../../core/errors.ts";
import { nearestNames } from "../../core/text/edit_distance.ts";
import { TOOL_NAME_OR_GLOB } from "../../core/tool_names.ts";

/** Which tools a session may see and call. */
export interface ToolSelection {
  allows(name: string): boolean;
  /** The lists it was made of, for messages. */
  readonly lists: readonly (readonly string[])[];
}

/** The selection allowing what every given list allows; undefined when no list is given. */
export function selectTools(
  ...lists: (readonly string[] | undefined)[]
): ToolSelection | undefined {
  const given = lists.filter((l): l is readonly string[] => l !== undefined);
  if (given.length === 0) return undefined;
  const matchers = given.map(listPattern);
  return { allows: (name) => matchers.every((m) => m.test(name)), lists: given };
}

/**
 * One pattern matching any name of the list: tool names and globs hold only letters, digits, `_`
 * and `-` besides `*` and `?` (TOOL_NAME_OR_GLOB, which parseToolList and the config schema
 * check), so a glob is a regular expression with `*` as `.*` and `?` as `.` — no glob library
 * needed on every session's start.
 */
function listPattern(list: readonly string[]): RegExp {
  const one = (glob: string) =>
    glob.replace(/[^A-Za-z0-9_*?]/g, (c) => `\\${c}`).replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^(?:${list.map(one).join("|")})$`);
}

/**
 * A `--tools` list checked against the tools engram has: names must fit the tool-name rule (globs
 * may use `*` and `?`); a plain name that is neither one of `known` nor an exposed upstream tool
 * (`mcp_…`) is refused with the nearest names.
 */
export function parseToolList(text: string, known: readonly string[]): string[] {
  return checkToolList(text.split(",").map((t) => t.trim()).filter(Boolean), known);
}

/**
 * The same checks for a list already split — the config's `server.tools` — with `where` (the key)
 * leading each message, so a typo in the file is refused at start instead of hiding the tool.
 */
export function checkToolList(
  list: readonly string[],
  known: readonly string[],
  o: { where?: string } = {},
): string[] {
  const fail = (message: string) =>
    new EngramError("invalid_argument", o.where ? `${o.where}: ${message}` : message);
  if (list.length === 0) throw fail("the tool list is empty; name at least one tool");
  for (const item of list) {
    if (!TOOL_NAME_OR_GLOB.test(item)) {
      throw fail(`"${item}" is not a tool name or glob (letters, digits, _ and -, with * and ?)`);
    }
    if (/[*?]/.test(item) || item.startsWith("mcp_") || known.includes(item)) continue;
    throw fail(`engram has no tool "${item}"; nearest: ${nearestNames(item, known).join(", ")}`);
  }
  return [...list];
}

/** Where the configured selection is written, for messages. */
export const SERVER_TOOLS_KEY = "config key server.tools";

/** Why a tool outside the selection is refused. */
export function notSelected(name: string, selection: ToolSelection): EngramError {
  return new EngramError(
    "forbidden",
    `tool ${name} is not in this session's tool selection (${
      selection.lists.map((l) => l.join(",")).join(" and ")
    }); start the session with it selected (engram stdio --tools, engram tokens create --tools, server.tools)`,
  );
}
