/**
 * @module YAML front matter: reading it into title, tags and metadata, and writing it back in the
 * layout Obsidian's Properties view shows: `title`, `tags` (a list) and the user's keys flat at the
 * top level, engram's own keys under one `engram:` map.
 */
import { stringify } from "yaml";
import type { InputWarning, Metadata, MetadataValue } from "../types.ts";
import {
  isMap,
  keyLine,
  readBlock,
  tagsOf,
  timeOf,
  titleOf,
  titleOfBroken,
} from "./front_matter_warnings.ts";

/** What a front matter block says about a document. */
export interface FrontMatter {
  id?: string;
  title?: string;
  tags: string[];
  created_at?: string;
  updated_at?: string;
  /** Every other key, flattened to metadata values (lists comma-joined, maps as JSON). */
  metadata: Metadata;
}

/** Top-level keys read as document fields, never as metadata (`engram` only when it is a map). */
const RESERVED = new Set(["id", "title", "tags", "tag", "created_at", "updated_at", "metadata"]);
/** The map holding engram's own keys in the written layout. */
const ENGRAM_KEY = "engram";
/** Metadata engram keeps for itself (re-ingest detection): written under `engram:`, not shown flat. */
const ENGRAM_METADATA = new Set(["source_hash"]);

/** A note split into its front matter and body, with what reading it could not take as written. */
export interface ReadFrontMatter {
  /** Null when there is no block, or it does not parse (then the body is the whole text). */
  front: FrontMatter | null;
  body: string;
  /** Lines of the text as given: a block that does not parse, keys of the wrong type. */
  warnings: InputWarning[];
  /** For a block that does not parse: the title its own `title:` line names, if it reads alone. */
  title?: string;
}

/**
 * Splits leading front matter from the body. Invalid YAML is left in the body, untouched, and
 * said in a warning; so is a key read otherwise than written (docs/tools.md#result-records).
 */
export function readFrontMatter(text: string): ReadFrontMatter {
  const block = readBlock(text);
  const data = block.data;
  if (!data) {
    const salvaged = block.length ? titleOfBroken(block.yaml) : undefined;
    const warnings = block.warnings.map((w) =>
      salvaged
        ? { ...w, message: `${w.message}, and read the title from line ${salvaged.line}` }
        : w
    );
    return { front: null, body: text, warnings, title: salvaged?.title };
  }
  const own = isMap(data[ENGRAM_KEY]) ? data[ENGRAM_KEY] : {};
  const metadata: Metadata = {};
  // The old layout nested user keys under `metadata:`; hand-written notes have them flat.
  if (isMap(data.metadata)) {
    for (const [k, v] of Object.entries(data.metadata)) setValue(metadata, k, v);
  }
  for (const [k, v] of Object.entries(data)) {
    if (!RESERVED.has(k) && !(k === ENGRAM_KEY && isMap(v))) setValue(metadata, k, v);
  }
  for (const k of ENGRAM_METADATA) if (k in own) setValue(metadata, k, own[k]);
  // User keys that collide with a reserved name were written under engram.metadata.
  if (isMap(own.metadata)) {
    for (const [k, v] of Object.entries(own.metadata)) setValue(metadata, k, v);
  }
  const line = (key: string) => keyLine(block.yaml, key);
  const tagKey = data.tags !== undefined ? "tags" : "tag";
  const tags = tagsOf(data[tagKey], { key: tagKey, line: line(tagKey) });
  const title = titleOf(data.title, { line: line("title") });
  const time = (key: "created_at" | "updated_at") => {
    // engram's own key wins; the top-level one is read when engram has none it can use.
    const ours = timeOf(own[key], { key: `${ENGRAM_KEY}.${key}`, line: line(ENGRAM_KEY) });
    if (ours.time) return ours;
    const top = timeOf(data[key], { key, line: line(key) });
    return { time: top.time, warnings: [...ours.warnings, ...top.warnings] };
  };
  const created = time("created_at");
  const updated = time("updated_at");
  return {
    front: {
      id: stringOf(own.id) ?? stringOf(data.id),
      title: title.title,
      tags: tags.tags,
      created_at: created.time,
      updated_at: updated.time,
      metadata,
    },
    body: text.slice(block.length).replace(/^\r?\n/, ""),
    warnings: [...title.warnings, ...tags.warnings, ...created.warnings, ...updated.warnings]
      .sort((a, b) => a.line - b.line),
  };
}

/**
 * Renders a front matter block (with the closing `---` and a newline) for a document: `title`,
 * `tags`, the metadata keys flat, then `engram:` with id, timestamps, engram's own metadata and,
 * under `engram.metadata`, user keys whose names are reserved at the top level.
 */
export function writeFrontMatter(front: FrontMatter): string {
  const data: Record<string, unknown> = {};
  const own: Record<string, unknown> = {};
  const colliding: Metadata = {};
  if (front.title) data.title = front.title;
  if (front.tags.length) data.tags = front.tags;
  for (const [k, v] of Object.entries(front.metadata)) {
    if (ENGRAM_METADATA.has(k)) own[k] = v;
    else if (RESERVED.has(k) || k === ENGRAM_KEY) colliding[k] = v;
    else data[k] = v;
  }
  if (front.id) own.id = front.id;
  if (front.created_at) own.created_at = front.created_at;
  if (front.updated_at) own.updated_at = front.updated_at;
  if (Object.keys(colliding).length) own.metadata = colliding;
  if (Object.keys(own).length) data[ENGRAM_KEY] = sortedOwn(own);
  return `---\n${stringify(data, { lineWidth: 0 })}---\n`;
}

/** A note read the way ingest and `engram remember` read markdown: content, title, tags, metadata. */
export function readNote(text: string): {
  content: string;
  title?: string;
  tags?: string[];
  metadata: Metadata;
  warnings: InputWarning[];
} {
  const { front, body, warnings, title } = readFrontMatter(text);
  return {
    // A note that is only front matter keeps it as its content rather than storing nothing.
    content: body.trim() === "" ? text : body,
    title: front?.title ?? title,
    tags: front?.tags.length ? front.tags : undefined,
    metadata: { ...front?.metadata },
    warnings,
  };
}

/** engram's keys in a fixed order: id, timestamps, then the rest. */
function sortedOwn(own: Record<string, unknown>): Record<string, unknown> {
  const order = ["id", "created_at", "updated_at"];
  const out: Record<string, unknown> = {};
  for (const k of order) if (k in own) out[k] = own[k];
  for (const [k, v] of Object.entries(own)) if (!order.includes(k)) out[k] = v;
  return out;
}

function setValue(out: Metadata, key: string, value: unknown): void {
  if (key.length === 0 || key.length > 128) return;
  out[key] = toMetadataValue(value);
}

function toMetadataValue(value: unknown): MetadataValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return value;
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value) && value.every((v) => typeof v !== "object" || v === null)) {
    return value.join(",");
  }
  return JSON.stringify(value);
}

/** A non-blank string, trimmed; a number (`id: 42`, `title: 2024`) as its decimal text. */
function stringOf(v: unknown): string | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}
