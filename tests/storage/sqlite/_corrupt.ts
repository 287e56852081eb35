/** @module A real engram database with documents, and one damaged the way a failing disk does it. */
import { DatabaseSync } from "node:sqlite";
import { openService } from "../../helpers.ts";
import { ADMIN } from "../../helpers.ts";

/** Writes `count` documents into a fresh `engram.db` in `dir` and closes it; returns the file. */
export async function databaseWithNotes(dir: string, count = 20): Promise<string> {
  using s = await openService(dir);
  for (let i = 0; i < count; i++) {
    await s.service.remember(ADMIN, {
      content: `# Note ${i}\n\n${`lorem ipsum dolor sit amet word${i} `.repeat(80)}`,
      path: `/notes/n${i}.md`,
    });
  }
  s.storage.connection.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return `${dir}/engram.db`;
}

/**
 * Overwrites the pages of the `documents` table and its indexes (four pages) with junk, as a
 * failing disk or a stray write would: the file still opens and `SELECT 1` still answers, but
 * anything that reads documents hits SQLITE_CORRUPT. Returns the page numbers overwritten.
 */
export async function overwriteDocumentPages(file: string): Promise<number[]> {
  const db = new DatabaseSync(file, { readOnly: true });
  let pageSize: number;
  let pages: number[];
  try {
    pageSize = (db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size;
    pages = (db.prepare(
      "SELECT rootpage FROM sqlite_schema WHERE tbl_name = 'documents' AND rootpage > 0 ORDER BY rootpage LIMIT 4",
    ).all() as { rootpage: number }[]).map((r) => r.rootpage);
  } finally {
    db.close();
  }
  const handle = await Deno.open(file, { read: true, write: true });
  try {
    for (const page of pages) {
      await handle.seek((page - 1) * pageSize, Deno.SeekMode.Start);
      await handle.write(new Uint8Array(pageSize).fill(0x5a));
    }
  } finally {
    handle.close();
  }
  return pages;
}
