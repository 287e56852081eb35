/**
 * @module What an upstream resource becomes in memory: its text as sent; a PDF blob through the
 * PDF path of ingestion; a blob declared as text decoded as UTF-8; any other binary refused with
 * the reason. The digest is over the bytes the server sent (text as UTF-8, blobs decoded), so it
 * says whether the upstream changed, whatever extraction makes of it.
 */
import { EngramError } from "../../../core/errors.ts";
import { sha256Bytes } from "../../../core/hash.ts";
import type { Metadata } from "../../../core/types.ts";
import { decodeUtf8, extract } from "../../../ingest/formats.ts";
import type { ReadResourceResult } from "../../sdk.ts";
import { concatBytes } from "../transport/oversize_message.ts";

/** A resource ready to store. */
export interface ResourceDocument {
  content: string;
  /** The title the content gives, when it gives one (a PDF's own title). */
  title?: string;
  contentType: string;
  /** Lowercase hex SHA-256 of the bytes fetched. */
  sha256: string;
  /** The MIME type the server declared, if any. */
  mimeType: string | null;
  /** What extraction adds (`source_format: pdf`). */
  metadata: Metadata;
}

type Content = ReadResourceResult["contents"][number];

/** MIME types whose bytes are text though not `text/*`. */
const TEXT_TYPES =
  /^(?:text\/|application\/(?:json|xml|yaml|x-yaml|toml|javascript|.*\+(?:json|xml)))/i;

/**
 * The storable document of a read result for `uri` of `server`. Several contents (a server may
 * send a resource in parts) are stored one after another.
 */
export async function resourceDocument(
  result: ReadResourceResult,
  where: { server: string; uri: string },
): Promise<ResourceDocument> {
  const label = `upstream ${where.server} resource ${where.uri}`;
  if (!result.contents.length) {
    throw new EngramError("invalid_argument", `${label} has no contents; nothing to compile`);
  }
  const parts = [];
  for (const c of result.contents) parts.push(await contentPart(c, where));
  const content = parts.map((p) => p.content).join("\n\n");
  if (content.trim() === "") {
    throw new EngramError("invalid_argument", `${label} is empty; nothing to compile`);
  }
  const bytes = parts.length === 1 ? parts[0].bytes : concatBytes(parts.map((p) => p.bytes));
  const pdf = parts.some((p) => p.pdf);
  return {
    content,
    title: parts[0].title,
    contentType: pdf || parts.some((p) => p.markdown) ? "text/markdown" : "text/plain",
    sha256: sha256Bytes(bytes),
    mimeType: result.contents[0].mimeType ?? null,
    metadata: pdf ? { source_format: "pdf" } : {},
  };
}

interface Part {
  content: string;
  title?: string;
  bytes: Uint8Array;
  pdf: boolean;
  markdown: boolean;
}

async function contentPart(c: Content, where: { server: string; uri: string }): Promise<Part> {
  const label = `upstream ${where.server} resource ${where.uri}`;
  const mime = (c.mimeType ?? "").toLowerCase().split(";")[0].trim();
  if ("text" in c && typeof c.text === "string") {
    return {
      content: c.text,
      bytes: new TextEncoder().encode(c.text),
      pdf: false,
      markdown: mime === "text/markdown" || (!mime && /\.(md|markdown)$/i.test(c.uri)),
    };
  }
  const blob = (c as { blob?: unknown }).blob;
  if (typeof blob !== "string") {
    throw new EngramError("invalid_argument", `${label} sent a content with neither text nor blob`);
  }
  const bytes = fromBase64(blob, label);
  if (mime === "application/pdf" || startsWithPdfMagic(bytes)) {
    const pdf = await extract(bytes, { name: label, format: "pdf" });
    return { content: pdf.content, title: pdf.title, bytes, pdf: true, markdown: true };
  }
  if (TEXT_TYPES.test(mime)) {
    return {
      content: decodeUtf8(bytes, label),
      bytes,
      pdf: false,
      markdown: mime === "text/markdown",
    };
  }
  throw new EngramError(
    "invalid_argument",
    `${label} is binary (${
      mime || "no MIME type"
    }, ${bytes.length} bytes); only text and PDF resources can be compiled into memory — look at it with: engram mcp read-resource ${where.server} ${where.uri} --json`,
  );
}

function fromBase64(text: string, label: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw new EngramError("invalid_argument", `${label} sent a blob that is not valid base64`);
  }
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}

function startsWithPdfMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 5 && new TextDecoder().decode(bytes.subarray(0, 5)) === "%PDF-";
}
