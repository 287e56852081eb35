/**
 * @module YAML front matter: reading it into title, tags and metadata, and writing it back in the
 * layout Obsidian's Properties view shows: `title`, `tags` (a list) and the user's keys flat at the
 * top level, engram's own keys under one `engram:` map.
 */
import { parse, stringify } from "yaml";
import type { Metadata, MetadataValue } from "../types.ts";
import { frontMatterLength } from "./structure.ts";

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

/** Splits leading front matter from the body. Invalid YAML is left in the body, untouched. */
export function readFrontMatter(text: string): { front: FrontMatter | null; body: string } {
  const length = frontMatterLength(text);
  if (length === 0) return { front: null, body: text };
  // The YAML ends where the closing delimiter line starts (the block's last line).
  const block = text.slice(0, length).replace(/\r?\n$/, "");
  const yamlText = text.slice(text.indexOf("\n") + 1, block.lastIndexOf("\n") + 1);
  let data: unknown;
  try {
    data = parse(yamlText);
  } catch {
    return { front: null, body: text };
  }
  if (data === null || data === undefined) data = {};
  if (!isMap(data)) return { front: null, body: text };
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
  return {
    front: {
      id: stringOf(own.id) ?? stringOf(data.id),
      title: stringOf(data.title),
      tags: tagsOf(data.tags ?? data.tag),
      created_at: timeOf(own.created_at) ?? timeOf(data.created_at),
      updated_at: timeOf(own.updated_at) ?? timeOf(data.updated_at),
      metadata,
    },
    body: text.slice(length).replace(/^\r?\n/, ""),
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
export function readNote(
  text: string,
): { content: string; title?: string; tags?: string[]; metadata: Metadata } {
  const { front, body } = readFrontMatter(text);
  return {
    // A note that is only front matter keeps it as its content rather than storing nothing.
    content: body.trim() === "" ? text : body,
    title: front?.title,
    tags: front?.tags.length ? front.tags : undefined,
    metadata: { ...front?.metadata },
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

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);
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

function timeOf(v: unknown): string | undefined {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "string" && !Number.isNaN(Date.parse(v))) return new Date(v).toISOString();
  return undefined;
}

function tagsOf(v: unknown): string[] {
  const list = Array.isArray(v) ? v : typeof v === "string" ? v.split(/[,\s]+/) : [];
  const tags = list.map((t) => String(t).trim().replace(/^#/, "")).filter((t) =>
    t && !t.includes(",")
  );
  return [...new Set(tags)].slice(0, 64).map((t) => t.slice(0, 64));
}
