/**
 * @module A document's derived rows over PostgreSQL: chunks (which the full-text index reads), links
 * and tags. Shared by writing a version (postgres_documents.ts) and re-chunking (the search index).
 */
import { newId } from "../../core/ids.ts";
import type { ChunkInput, LinkInput } from "../../core/types.ts";
import type { Queries } from "./connection.ts";

/** A document as its derived rows name it. */
export type IndexedDocument = { id: string; brainId: string; title: string };

/** Rows per multi-row INSERT: well under PostgreSQL's 65,535 parameters a statement. */
const ROWS_PER_INSERT = 1000;

/** Replaces a document's chunks and links. */
export async function writeIndex(
  sql: Queries,
  doc: IndexedDocument,
  derived: { chunks: ChunkInput[]; links: LinkInput[] },
): Promise<void> {
  await sql`DELETE FROM chunks WHERE document_id = ${doc.id}`;
  await appendChunks(sql, doc, derived.chunks);
  await sql`DELETE FROM links WHERE source_document_id = ${doc.id}`;
  const links = derived.links.map((l) => ({
    source_document_id: doc.id,
    brain_id: doc.brainId,
    kind: l.kind,
    target_path: l.target_path,
    target_key: l.target_key,
    text: l.text,
  }));
  for (let at = 0; at < links.length; at += ROWS_PER_INSERT) {
    const rows = links.slice(at, at + ROWS_PER_INSERT);
    await sql`INSERT INTO links ${
      sql(rows, "source_document_id", "brain_id", "kind", "target_path", "target_key", "text")
    }`;
  }
}

/** Adds chunks to a document's index, in order. */
export async function appendChunks(
  sql: Queries,
  doc: IndexedDocument,
  chunks: ChunkInput[],
): Promise<void> {
  for (let at = 0; at < chunks.length; at += ROWS_PER_INSERT) {
    const rows = chunks.slice(at, at + ROWS_PER_INSERT).map((c) => ({
      id: newId("chk"),
      document_id: doc.id,
      brain_id: doc.brainId,
      ordinal: c.ordinal,
      title: doc.title,
      headings: c.heading_path.join(" › "),
      body: c.body,
      start_offset: c.start_offset,
      end_offset: c.end_offset,
    }));
    await sql`INSERT INTO chunks ${
      sql(
        rows,
        "id",
        "document_id",
        "brain_id",
        "ordinal",
        "title",
        "headings",
        "body",
        "start_offset",
        "end_offset",
      )
    }`;
  }
}

/** Replaces a document's tags. */
export async function writeTags(
  sql: Queries,
  doc: { id: string; brainId: string },
  tags: string[],
): Promise<void> {
  await sql`DELETE FROM document_tags WHERE document_id = ${doc.id}`;
  if (tags.length === 0) return;
  const rows = tags.map((tag) => ({ document_id: doc.id, brain_id: doc.brainId, tag }));
  await sql`INSERT INTO document_tags ${sql(rows, "document_id", "brain_id", "tag")}`;
}
