/**
 * @module The BrainStore port over SQLite. Brains are read on every call to resolve its brain, so
 * the list is cached until the database changes. Deleting a brain removes every row that belongs
 * to it and narrows or revokes the tokens scoped to it, in one transaction.
 */
import { EngramError } from "../../core/errors.ts";
import type { BrainDeletion, BrainStore } from "../../core/ports/brain_store.ts";
import type { Brain, Visibility } from "../../core/types.ts";
import type { Prepares } from "./database.ts";
import { toBrain } from "./rows.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";
import { dropBrainFromTokens } from "./sqlite_tokens.ts";
import { StampedCache } from "./stamped_cache.ts";

/** Brains over one connection. */
export class SqliteBrainStore implements BrainStore {
  readonly #conn: SqliteConnection;
  readonly #cache = new StampedCache<Brain[]>(1);

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  listBrains(): Promise<Brain[]> {
    return this.#conn.read(() => [...this.#all()]);
  }

  findBrain(slugOrId: string): Promise<Brain | null> {
    return this.#conn.read(() =>
      this.#all().find((b) => b.slug === slugOrId || b.id === slugOrId) ?? null
    );
  }

  createBrain(
    input: { id: string; slug: string; name: string; visibility: Visibility },
  ): Promise<Brain> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      const now = this.#conn.now().toISOString();
      const inserted = this.#conn.prepare(
        "INSERT INTO brains (id, slug, name, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (slug) DO NOTHING",
      ).run(input.id, input.slug, input.name, input.visibility, now, now);
      if (inserted.changes === 0) {
        throw new EngramError(
          "conflict",
          `brain slug "${input.slug}" is already taken; choose another --slug`,
        );
      }
      return { ...input, created_at: now, updated_at: now };
    });
  }

  deleteBrain(brainId: string, options: { at: string }): Promise<BrainDeletion> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      return deleteBrainRows(this.#conn, brainId, options.at);
    });
  }

  renameBrain(brainId: string, change: { name?: string; slug?: string }): Promise<Brain> {
    return this.#conn.write(() => {
      this.#conn.invalidates();
      return renameBrainRow(this.#conn, brainId, { ...change, at: this.#conn.now().toISOString() });
    });
  }

  #all(): Brain[] {
    return this.#conn.throughCache(
      this.#cache,
      "",
      () =>
        this.#conn.prepare("SELECT * FROM brains ORDER BY created_at, rowid").all().map(toBrain),
    )!;
  }
}

/**
 * Everything else a brain holds (documents and their versions, chunks with their FTS rows and
 * vectors, tags, links, sessions and messages, jobs) goes by the schema's `ON DELETE CASCADE`.
 * Locks are named after the brain id (`consolidate:<id>`), with no key to cascade on. The audit
 * log is kept on purpose: it holds no content (arguments are digested) and records who did what.
 */
const DELETE_STATEMENTS = [
  "DELETE FROM locks WHERE instr(name, $brain) > 0",
  "DELETE FROM brains WHERE id = $brain",
];

/** Deletes a brain and everything in it; call inside a write transaction. */
function deleteBrainRows(db: Prepares, brainId: string, at: string): BrainDeletion {
  const { n: documents } = db.prepare("SELECT count(*) AS n FROM documents WHERE brain_id = ?")
    .get(brainId) as { n: number };
  for (const sql of DELETE_STATEMENTS) db.prepare(sql).run({ brain: brainId });
  return { documents, ...dropBrainFromTokens(db, brainId, at) };
}

/** Sets a brain's name and/or slug; `conflict` when another brain has the slug. */
function renameBrainRow(
  db: Prepares,
  brainId: string,
  change: { name?: string; slug?: string; at: string },
): Brain {
  if (change.slug !== undefined) {
    const taken = db.prepare("SELECT id FROM brains WHERE slug = ? AND id != ?")
      .get(change.slug, brainId);
    if (taken) {
      throw new EngramError(
        "conflict",
        `brain slug "${change.slug}" is already taken; choose another --slug`,
      );
    }
  }
  const row = db.prepare(
    `UPDATE brains SET name = coalesce($name, name), slug = coalesce($slug, slug), updated_at = $at
      WHERE id = $id RETURNING *`,
  ).get({ name: change.name ?? null, slug: change.slug ?? null, at: change.at, id: brainId });
  if (!row) {
    throw new EngramError(
      "no_brain",
      `brain "${brainId}" not found; list brains with: engram brains list`,
    );
  }
  return toBrain(row);
}
