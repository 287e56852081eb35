/** @module Source formats: telling them apart, and turning bytes into markdown with title, tags and metadata. */
import { EngramError } from "../core/errors.ts";
import { readNote } from "../core/markdown/front_matter.ts";
import type { InputWarning, Metadata } from "../core/types.ts";
import { pdfToMarkdown } from "./pdf.ts";
import { jsonToMarkdown } from "./transcript.ts";

/** Formats memory_ingest_file reads. */
export const FORMATS = ["markdown", "text", "pdf", "json"] as const;
/** One of FORMATS. */
export type Format = (typeof FORMATS)[number];

const BY_EXTENSION: Record<string, Format> = {
  md: "markdown",
  markdown: "markdown",
  mdx: "markdown",
  txt: "text",
  text: "text",
  log: "text",
  rst: "text",
  org: "text",
  csv: "text",
  pdf: "pdf",
  json: "json",
};

/** Extracted content ready for MemoryService.ingest. */
export interface Extracted {
  content: string;
  title?: string;
  tags?: string[];
  metadata: Metadata;
  contentType: string;
  /** What reading a markdown file's front matter could not take as written. */
  warnings?: InputWarning[];
}

/** The format from `as`, else from the file extension. */
export function formatOf(name: string, as?: Format): Format {
  if (as) return as;
  const ext = name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? "";
  const format = BY_EXTENSION[ext];
  if (!format) {
    throw new EngramError(
      "invalid_argument",
      `cannot tell the format of ${name} from its extension; pass as: markdown, text, pdf or json`,
    );
  }
  return format;
}

/** UTF-8 text of a file, refusing binary content. */
export function decodeUtf8(bytes: Uint8Array, name: string): string {
  if (bytes.includes(0)) {
    throw new EngramError(
      "invalid_argument",
      `${name} looks binary (it contains NUL bytes), not text`,
    );
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new EngramError(
      "invalid_argument",
      `${name} is not valid UTF-8 text; convert it to UTF-8 first`,
    );
  }
}

/** Markdown (front matter → title, tags, metadata), text, PDF or JSON to storable content. */
export async function extract(
  bytes: Uint8Array,
  options: { name: string; format: Format },
): Promise<Extracted> {
  const { name, format } = options;
  if (format === "pdf") {
    const pdf = await pdfToMarkdown(bytes, name);
    return {
      content: pdf.markdown,
      title: pdf.title,
      metadata: { source_format: "pdf" },
      contentType: "text/markdown",
    };
  }
  const text = decodeUtf8(bytes, name);
  if (format === "json") {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new EngramError(
        "invalid_argument",
        `${name} is not valid JSON: ${(err as Error).message}`,
      );
    }
    const md = jsonToMarkdown(value, name.split("/").pop() || name);
    return {
      content: md.markdown,
      title: md.title,
      metadata: { source_format: "json" },
      contentType: "text/markdown",
    };
  }
  if (text.trim() === "") {
    throw new EngramError("invalid_argument", `${name} is empty; nothing to ingest`);
  }
  if (format === "text") {
    return { content: text, metadata: { source_format: "text" }, contentType: "text/plain" };
  }
  const note = readNote(text);
  return {
    ...note,
    metadata: { ...note.metadata, source_format: "markdown" },
    contentType: "text/markdown",
  };
}
