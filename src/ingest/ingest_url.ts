/** @module memory_ingest_url's work: fetch safely, convert to markdown, store. */
import { EngramError } from "../core/errors.ts";
import { sha256Bytes } from "../core/hash.ts";
import { slugify } from "../core/markdown/naming.ts";
import type { MemoryService } from "../core/memory_service.ts";
import type { CallerContext, IngestResponse } from "../core/types.ts";
import { decodeText, htmlToMarkdown } from "./html.ts";
import { pdfToMarkdown } from "./pdf.ts";
import { fetchUrl } from "./url_fetch.ts";

/** The brain path for a URL: /ingest/web/<host>/<slug of the path and query>.md. */
export function urlPath(url: URL): string {
  const rest = slugify(`${url.pathname} ${url.search}`, 120) || "index";
  return `/ingest/web/${url.host.replace(/[^a-zA-Z0-9.-]/g, "-")}/${rest}.md`;
}

/** Fetches a URL (SSRF-checked, size-capped) and stores it as a document. */
export async function ingestUrl(
  service: MemoryService,
  caller: CallerContext,
  args: {
    url: string;
    brain?: string;
    allowHosts: readonly string[];
    /** See FetchOptions.allowFlag: only the operator CLI passes one. */
    allowFlag?: string;
    timeoutMs: number;
    signal?: AbortSignal;
  },
): Promise<IngestResponse> {
  const body = await fetchUrl(args.url, {
    allowHosts: args.allowHosts,
    allowFlag: args.allowFlag,
    timeoutMs: args.timeoutMs,
    signal: args.signal,
  });
  const type = body.contentType.split(";")[0].trim().toLowerCase();
  const finalUrl = new URL(body.url);
  let content: string;
  let title: string | undefined;
  if (type === "text/html" || type === "application/xhtml+xml") {
    const page = await htmlToMarkdown(decodeText(body.bytes, body.contentType), body.url);
    title = page.title;
    content = page.markdown;
  } else if (type === "application/pdf") {
    const pdf = await pdfToMarkdown(body.bytes, body.url);
    title = pdf.title;
    content = pdf.markdown;
  } else if (
    type.startsWith("text/") || type === "application/json" || type.endsWith("+json") || type === ""
  ) {
    content = decodeText(body.bytes, body.contentType);
  } else {
    throw new EngramError(
      "invalid_argument",
      `${body.url} is ${type}; engram ingests HTML, text, markdown, JSON and PDF from URLs`,
    );
  }
  if (content.trim() === "") {
    throw new EngramError("invalid_argument", `${body.url} has no text to ingest`);
  }
  return await service.ingest(caller, {
    brain: args.brain,
    path: urlPath(finalUrl),
    content,
    title: title ?? (finalUrl.host + finalUrl.pathname),
    metadata: { source_url: body.url, source_format: type || "text/plain" },
    sourceHash: sha256Bytes(body.bytes),
    contentType: "text/markdown",
  });
}
