/** @module PDF text extraction (unpdf: pdf.js built for server runtimes, no native code). */
import { EngramError } from "../core/errors.ts";

/** Text of a PDF as markdown, one `## Page N` section per page, and its title when it has one. */
export async function pdfToMarkdown(
  bytes: Uint8Array,
  name: string,
): Promise<{ title?: string; markdown: string }> {
  // Loaded on first use: pdf.js is large, and most sessions never read a PDF.
  const { extractText, getDocumentProxy } = await import("unpdf");
  let doc;
  try {
    // verbosity 0: pdf.js must never write warnings to stdout, which carries JSON-RPC in stdio mode.
    doc = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (err) {
    throw new EngramError(
      "invalid_argument",
      `${name} is not a readable PDF: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  try {
    const { text } = await extractText(doc, { mergePages: false });
    const pages = (text as string[]).map((t) => t.replace(/[ \t]+\n/g, "\n").trim());
    if (pages.every((p) => p === "")) {
      throw new EngramError(
        "invalid_argument",
        `${name} has no extractable text (a scanned PDF needs OCR before it can be ingested)`,
      );
    }
    const meta = await doc.getMetadata().catch(() => null);
    const info = meta?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === "string" && info.Title.trim()
      ? info.Title.trim()
      : undefined;
    const markdown = pages.length === 1
      ? pages[0]
      : pages.map((p, i) => `## Page ${i + 1}\n\n${p}`).join("\n\n");
    return { title, markdown };
  } finally {
    await doc.cleanup().catch(() => {});
  }
}
