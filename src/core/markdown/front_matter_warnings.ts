/**
 * @module Checking a front matter block as it is read: YAML that does not parse, a block that is
 * not `key: value` lines or is never closed, and keys of the wrong type. Each finding is a warning
 * naming its line in the text as given and what was kept (docs/tools.md#result-records): the note
 * is stored anyway, and nothing is dropped without a word.
 */
import { parse } from "yaml";
import type { InputWarning } from "../types.ts";
import { frontMatterLength } from "./structure.ts";

/** Tags a note keeps at most, and characters per tag (the wire limits of `tags`). */
const MAX_TAGS = 64;
const MAX_TAG_CHARS = 64;

/** A leading front matter block as read. */
export interface FrontMatterBlock {
  /** Length of the block, its closing delimiter line included; 0 when there is none. */
  length: number;
  /** The YAML between the delimiters. */
  yaml: string;
  /** The parsed map; null when there is no block, or it does not parse, or is not a map. */
  data: Record<string, unknown> | null;
  /** Why a block that is there was not read. */
  warnings: InputWarning[];
}

/** Reads the leading front matter block of `text`, if any, saying why one was not read. */
export function readBlock(text: string): FrontMatterBlock {
  const length = frontMatterLength(text);
  if (length === 0) return { length, yaml: "", data: null, warnings: unclosed(text) };
  // The YAML ends where the closing delimiter line starts (the block's last line).
  const block = text.slice(0, length).replace(/\r?\n$/, "");
  const yaml = text.slice(text.indexOf("\n") + 1, block.lastIndexOf("\n") + 1);
  let data: unknown;
  try {
    data = parse(yaml);
  } catch (err) {
    return { length, yaml, data: null, warnings: [parseFailure(err, yaml)] };
  }
  if (data === null || data === undefined) data = {};
  if (!isMap(data)) {
    const kind = Array.isArray(data) ? "a list" : `the ${typeof data} ${JSON.stringify(data)}`;
    return {
      length,
      yaml,
      data: null,
      warnings: [{
        line: 2,
        message: `front matter is ${kind}, not key: value lines; stored it as part of the text`,
      }],
    };
  }
  return { length, yaml, data, warnings: [] };
}

/**
 * Warnings about the front matter block itself (it does not parse, is not a map, is not closed):
 * what memory_remember and memory_update check, since they keep front matter as part of the
 * content and read none of its keys.
 */
export function frontMatterWarnings(text: string): InputWarning[] {
  return readBlock(text).warnings;
}

/**
 * In a block that does not parse, the value of its own top-level `title:` line when that line
 * reads alone as text, so a note keeps the title it names.
 */
export function titleOfBroken(yaml: string): { title: string; line: number } | undefined {
  const lines = yaml.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (!/^title[ \t]*:/.test(line)) continue;
    try {
      const value = (parse(line) as Record<string, unknown> | null)?.title;
      const title = typeof value === "number" ? String(value) : value;
      if (typeof title === "string" && title.trim()) return { title: title.trim(), line: i + 2 };
    } catch { /* the title line is part of what does not parse */ }
    return undefined;
  }
  return undefined;
}

/** The line (in the text as given) of top-level `key` in a block's YAML; the block's first line when absent. */
export function keyLine(yaml: string, key: string): number {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const at = yaml.split(/\r?\n/).findIndex((l) =>
    new RegExp(`^["']?${escaped}["']?[ \\t]*:`).test(l)
  );
  return at === -1 ? 1 : at + 2;
}

/**
 * Tags from a `tags` (or `tag`) value: a list, or one string split at commas and spaces. A number
 * or boolean is read as one tag, a map as none, a list or map inside the list is left out; each
 * with a warning, as is cutting a long tag or a long list.
 */
export function tagsOf(value: unknown, at: { key: string; line: number }): {
  tags: string[];
  warnings: InputWarning[];
} {
  const warnings: InputWarning[] = [];
  const warn = (message: string) => warnings.push({ line: at.line, message });
  let raw: string[] = [];
  if (typeof value === "string") raw = value.split(/[,\s]+/);
  else if (typeof value === "number" || typeof value === "boolean") {
    warn(`${at.key}: ${value} is a ${typeof value}; read as the tag "${value}"`);
    raw = [String(value)];
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      if (item === null || item === undefined) continue;
      if (typeof item === "object") {
        warn(
          `${at.key}: item ${i + 1} is a ${
            Array.isArray(item) ? "list" : "map"
          }, not a tag; left it out`,
        );
      } // A comma inside one item splits it, as in the string form: stored tags are comma-joined.
      else raw.push(...String(item).split(","));
    }
  } else if (value !== null && value !== undefined) {
    warn(`${at.key} is a map, not a list of tags; read no tags from it — write ${at.key}: [a, b]`);
  }
  const tags = [...new Set(raw.map((t) => t.trim().replace(/^#/, "")).filter((t) => t))];
  if (tags.length > MAX_TAGS) {
    warn(`${at.key}: ${tags.length} tags; kept the first ${MAX_TAGS}`);
    tags.length = MAX_TAGS;
  }
  return {
    tags: [
      ...new Set(tags.map((t) => {
        if (t.length <= MAX_TAG_CHARS) return t;
        warn(
          `tag "${
            t.slice(0, 20)
          }…" is over ${MAX_TAG_CHARS} characters; kept its first ${MAX_TAG_CHARS}`,
        );
        return t.slice(0, MAX_TAG_CHARS);
      })),
    ],
    warnings,
  };
}

/** A title: text, or a number as its decimal text; a boolean is read as its word, with a warning. */
export function titleOf(value: unknown, at: { line: number }): {
  title?: string;
  warnings: InputWarning[];
} {
  if (typeof value === "number" && Number.isFinite(value)) {
    return { title: String(value), warnings: [] };
  }
  if (typeof value === "string") return { title: value.trim() || undefined, warnings: [] };
  if (value === null || value === undefined) return { warnings: [] };
  if (typeof value === "boolean") {
    return {
      title: String(value),
      warnings: [{
        line: at.line,
        message: `title: ${value} is a boolean; read as the title "${value}"`,
      }],
    };
  }
  const kind = Array.isArray(value) ? "a list" : "a map";
  return {
    warnings: [{
      line: at.line,
      message: `title is ${kind}, not text; ignored it (the title comes from the note instead)`,
    }],
  };
}

/** A timestamp as RFC 3339, or a warning that it is not one. */
export function timeOf(value: unknown, at: { key: string; line: number }): {
  time?: string;
  warnings: InputWarning[];
} {
  if (value === null || value === undefined) return { warnings: [] };
  if (value instanceof Date) return { time: value.toISOString(), warnings: [] };
  if (typeof value === "string" && !Number.isNaN(Date.parse(value))) {
    return { time: new Date(value).toISOString(), warnings: [] };
  }
  return {
    warnings: [{
      line: at.line,
      message: `${at.key}: ${JSON.stringify(value)} is not a date; ignored it`,
    }],
  };
}

/** Whether `v` is a plain map (not a list, not a date). */
export function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);
}

/** An opening `---` followed by a `key:` line but no closing delimiter: front matter left open. */
function unclosed(text: string): InputWarning[] {
  const m = /^---\r?\n([^\r\n]*)/.exec(text);
  if (!m || !/^[A-Za-z_][\w-]*[ \t]*:/.test(m[1])) return [];
  return [{
    line: 1,
    message:
      "front matter opened on line 1 is never closed with a --- line; stored it as part of the text",
  }];
}

/** "front matter does not parse (line 3: unclosed flow sequence); …", at the line it names. */
function parseFailure(err: unknown, yaml: string): InputWarning {
  const message = err instanceof Error ? err.message : String(err);
  const pos = (err as { linePos?: { line: number }[] }).linePos?.[0]?.line;
  let line = pos === undefined ? 1 : pos + 1;
  let reason = message.split(/ at line \d+/)[0].trim();
  const flow = /^Flow (sequence|map) in block collection/.exec(reason);
  if (flow) {
    // YAML reports where it gave up (the closing ---); the user needs the line that opened it.
    const open = flow[1] === "sequence" ? "[" : "{";
    reason = `unclosed flow ${flow[1]}: a ${open} without its ${open === "[" ? "]" : "}"}`;
    const lines = yaml.split(/\r?\n/);
    for (let i = Math.min(line - 2, lines.length - 1); i >= 0; i--) {
      if (lines[i].includes(open)) {
        line = i + 2;
        break;
      }
    }
  } else reason = reason.charAt(0).toLowerCase() + reason.slice(1);
  return {
    line,
    message: `front matter does not parse (line ${line}: ${reason}); stored it as part of the text`,
  };
}

/** `record` with `warnings` added when there are any (a clean write's result is unchanged). */
export function withWarnings<T extends object>(
  record: T,
  warnings: readonly InputWarning[] | undefined,
): T & { warnings?: InputWarning[] } {
  return warnings?.length ? { ...record, warnings: [...warnings] } : record;
}
