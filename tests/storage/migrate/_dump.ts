/**
 * @module Every table of a SQLite file as plain rows, to compare two databases without the code
 * under test (`engram migrate`'s): rows with their rowid where engram orders by it, the full-text
 * index by what it answers.
 */
import { DatabaseSync } from "node:sqlite";

/**
 * The tables whose rowid engram never reads (they are looked up by their keys alone, or have no
 * rowid): a copy keeps their rows, not the order they were written in.
 */
const UNORDERED = new Set([
  "chunk_vectors",
  "document_tags",
  "document_provenance",
  "locks",
  "oauth_codes",
  "oauth_refresh_tokens",
  "oauth_pairing_codes",
  "upstream_servers",
  "capability_pins",
  "capability_sightings",
  "upstream_credentials",
]);

/**
 * Every table of a SQLite file as rows, by table: with the rowid where engram orders by it, else
 * in the order of their values.
 */
export function dumpSqlite(file: string): Record<string, unknown[]> {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const tables = db.prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
        AND name NOT LIKE 'chunks_fts%' AND name NOT LIKE 'chunks_words%' ORDER BY name`,
    ).all() as { name: string }[];
    const out: Record<string, unknown[]> = {};
    for (const { name } of tables) {
      const rowid = UNORDERED.has(name) ? "" : "rowid AS _rowid, ";
      const columns = (db.prepare(`PRAGMA table_info("${name}")`).all() as unknown[]).length;
      const order = rowid ? "rowid" : Array.from({ length: columns }, (_, i) => i + 1).join(", ");
      out[name] = db.prepare(`SELECT ${rowid}* FROM "${name}" ORDER BY ${order}`).all();
    }
    // The derived index, by what it answers: the words it holds and where.
    out["(fts vocabulary)"] = db.prepare(
      "SELECT term, doc, cnt FROM chunks_words_vocab ORDER BY term",
    ).all();
    out["(fts match)"] = db.prepare(
      "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'importer' ORDER BY rowid",
    ).all();
    return out;
  } finally {
    db.close();
  }
}
