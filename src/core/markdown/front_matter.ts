/** @module YAML front matter: reading it into title, tags and metadata, and writing it back. */
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

const RESERVED = new Set(["id", "title", "tags", "tag", "created_at", "updated_at", "metadata"]);

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
  if (typeof data !== "object" || Array.isArray(data)) return { front: null, body: text };
  const record = data as Record<string, unknown>;
  const metadata: Metadata = {};
  const nested = record.metadata;
  if (nested && typeof nested === "object" && !Array.isArray(nested)) {
    for (const [k, v] of Object.entries(nested)) setValue(metadata, k, v);
  }
  for (const [k, v] of Object.entries(record)) if (!RESERVED.has(k)) setValue(metadata, k, v);
  return {
    front: {
      id: stringOf(record.id),
      title: stringOf(record.title),
      tags: tagsOf(record.tags ?? record.tag),
      created_at: timeOf(record.created_at),
      updated_at: timeOf(record.updated_at),
      metadata,
    },
    body: text.slice(length).replace(/^\r?\n/, ""),
  };
}

/** Renders a front matter block (with the closing `---` and a newline) for a document. */
export function writeFrontMatter(front: FrontMatter): string {
  const data: Record<string, unknown> = {};
  if (front.id) data.id = front.id;
  if (front.title) data.title = front.title;
  if (front.tags.length) data.tags = front.tags;
  if (front.created_at) data.created_at = front.created_at;
  if (front.updated_at) data.updated_at = front.updated_at;
  if (Object.keys(front.metadata).length) data.metadata = front.metadata;
  return `---\n${stringify(data, { lineWidth: 0 })}---\n`;
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
