/**
 * @module The SQL behind deleting and renaming a brain. Deleting removes every row that belongs to
 * the brain and narrows or revokes the tokens scoped to it; the caller runs it in one transaction.
 */
import { EngramError } from "../core/errors.ts";
import type { BrainDeletion } from "../core/store.ts";
import type { Brain } from "../core/types.ts";
import type { Prepares } from "./database.ts";
import { toBrain } from "./rows.ts";
import { dropBrainFromTokens } from "./sqlite_tokens.ts";

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
export function deleteBrainRows(db: Prepares, brainId: string, at: string): BrainDeletion {
  const { n: documents } = db.prepare("SELECT count(*) AS n FROM documents WHERE brain_id = ?")
    .get(brainId) as { n: number };
  for (const sql of DELETE_STATEMENTS) db.prepare(sql).run({ brain: brainId });
  return { documents, ...dropBrainFromTokens(db, brainId, at) };
}

/** Sets a brain's name and/or slug; `conflict` when another brain has the slug. */
export function renameBrainRow(
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
