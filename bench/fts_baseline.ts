/**
 * @module The raw FTS5 baseline of the retrieval benchmark: the same documents, one FTS5 row each
 * (title and content, the tokenizer engram uses), and one `bm25` query per question — its words,
 * each quoted, OR'd — in an in-memory SQLite database of this process. What anyone gets from FTS5
 * with no query processing, no chunking and no re-ranking.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { UnitDocument } from "./locomo.ts";

const WORD = /[\p{L}\p{N}]+/gu;

/** The question's words as one OR'd FTS5 expression, or null when it has none. */
export function orExpression(question: string): string | null {
  const words = [...new Set(question.toLowerCase().match(WORD) ?? [])];
  return words.length ? words.map((w) => `"${w}"`).join(" OR ") : null;
}

/** An in-memory FTS5 table over one set of documents. */
export class FtsBaseline implements Disposable {
  readonly #db = new DatabaseSync(":memory:");
  readonly #units: string[] = [];
  readonly #query: StatementSync;

  /** Indexes `docs`; row i is document i. */
  constructor(docs: readonly UnitDocument[]) {
    this.#db.exec(
      "CREATE VIRTUAL TABLE docs USING fts5 (title, content, " +
        "tokenize = 'porter unicode61 remove_diacritics 2')",
    );
    const insert = this.#db.prepare("INSERT INTO docs (rowid, title, content) VALUES (?, ?, ?)");
    this.#db.exec("BEGIN");
    docs.forEach((d, i) => {
      insert.run(i + 1, d.title, d.content);
      this.#units.push(d.unit);
    });
    this.#db.exec("COMMIT");
    this.#query = this.#db.prepare(
      "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?",
    );
  }

  /** Units of the best `k` documents for `question`, best first. */
  search(question: string, k: number): string[] {
    const expr = orExpression(question);
    if (!expr) return [];
    return this.#query.all(expr, k).map((r) => this.#units[(r.rowid as number) - 1]);
  }

  [Symbol.dispose](): void {
    this.#db.close();
  }
}
