/**
 * @module Documents under a path prefix. A range over `path` (not LIKE, where `%` and `_` in a
 * path would be wildcards) that the (brain_id, path) unique index answers directly.
 */
import type { Prepares } from "./database.ts";
import type { DocumentRecord } from "../../core/types.ts";
import { DOCUMENT_COLUMNS, type DocumentRow, toDocument } from "./rows.ts";

/** Live documents whose path starts with `prefix`, oldest first. */
export function listDocuments(db: Prepares, brainId: string, prefix: string): DocumentRecord[] {
  return db.prepare(
    `SELECT ${DOCUMENT_COLUMNS} FROM documents
      WHERE brain_id = $brain AND deleted_at IS NULL
        AND path >= $from AND ($to IS NULL OR path < $to)
      ORDER BY created_at, rowid`,
  ).all({ brain: brainId, from: prefix, to: prefixEnd(prefix) }).map((r) =>
    toDocument(r as unknown as DocumentRow)
  );
}

/** Up to `limit` live documents under `prefix` in path order, after the path `after` when given. */
export function documentPage(
  db: Prepares,
  brainId: string,
  options: { prefix: string; after?: string; limit: number },
): DocumentRecord[] {
  return db.prepare(
    `SELECT ${DOCUMENT_COLUMNS} FROM documents
      WHERE brain_id = $brain AND deleted_at IS NULL
        AND path >= $from AND ($to IS NULL OR path < $to) AND ($after IS NULL OR path > $after)
      ORDER BY path LIMIT $limit`,
  ).all({
    brain: brainId,
    from: options.prefix,
    to: prefixEnd(options.prefix),
    after: options.after ?? null,
    limit: options.limit,
  }).map((r) => toDocument(r as unknown as DocumentRow));
}

/**
 * The smallest string above every string starting with `prefix` (null when there is none: an
 * empty prefix, or one of U+10FFFF only). SQLite compares text as UTF-8 bytes, which orders like
 * code points, so this is `prefix` with its last code point incremented — skipping the surrogate
 * range, which is not valid UTF-8 and never stored.
 */
export function prefixEnd(prefix: string): string | null {
  const points = [...prefix].map((c) => c.codePointAt(0)!);
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      points.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  return null;
}
