/** @module A document's derived rows: chunks (and so its FTS rows, by trigger), links and tags. */
import { newId } from "../../core/ids.ts";
import type { ChunkInput, LinkInput } from "../../core/types.ts";
import type { Prepares } from "./database.ts";

/** A document as its derived rows name it. */
type IndexedDocument = { id: string; brainId: string; title: string };

/** Replaces a document's chunks and links. */
export function writeIndex(
  db: Prepares,
  doc: IndexedDocument,
  derived: { chunks: ChunkInput[]; links: LinkInput[] },
): void {
  db.prepare("DELETE FROM chunks WHERE document_id = ?").run(doc.id);
  appendChunks(db, doc, derived.chunks);
  db.prepare("DELETE FROM links WHERE source_document_id = ?").run(doc.id);
  const insLink = db.prepare(
    "INSERT INTO links (source_document_id, brain_id, kind, target_path, target_key, text) VALUES (?, ?, ?, ?, ?, ?)",
  );
  for (const l of derived.links) {
    insLink.run(doc.id, doc.brainId, l.kind, l.target_path, l.target_key, l.text);
  }
}

/** Adds chunks to a document's index (after `writeIndex` replaced it, for a long document). */
export function appendChunks(db: Prepares, doc: IndexedDocument, chunks: ChunkInput[]): void {
  const insChunk = db.prepare(
    `INSERT INTO chunks (id, document_id, brain_id, ordinal, title, headings, body, start_offset, end_offset)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const c of chunks) {
    insChunk.run(
      newId("chk"),
      doc.id,
      doc.brainId,
      c.ordinal,
      doc.title,
      c.heading_path.join(" › "),
      c.body,
      c.start_offset,
      c.end_offset,
    );
  }
}

/** Replaces a document's tags. */
export function writeTags(
  db: Prepares,
  doc: { id: string; brainId: string },
  tags: string[],
): void {
  db.prepare("DELETE FROM document_tags WHERE document_id = ?").run(doc.id);
  const ins = db.prepare("INSERT INTO document_tags (document_id, brain_id, tag) VALUES (?, ?, ?)");
  for (const t of tags) ins.run(doc.id, doc.brainId, t);
}
