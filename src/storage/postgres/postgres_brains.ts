/**
 * @module The BrainStore port over PostgreSQL. Brains are read from the database on every call (an
 * indexed lookup), not cached: another node may create, rename or delete one at any time. Deleting
 * a brain removes every row that belongs to it and narrows or revokes the tokens scoped to it, in
 * one transaction.
 */
import { EngramError } from "../../core/errors.ts";
import type { BrainDeletion, BrainStore } from "../../core/ports/brain_store.ts";
import type { Brain, Visibility } from "../../core/types.ts";
import { toBrain } from "../sqlite/rows.ts";
import type { PostgresConnection } from "./connection.ts";
import { afterFailedStatement, isUniqueViolation } from "./pg_errors.ts";
import { dropBrainFromTokens } from "./postgres_tokens.ts";

/** Brains over one pool. */
export class PostgresBrainStore implements BrainStore {
  readonly #conn: PostgresConnection;

  constructor(conn: PostgresConnection) {
    this.#conn = conn;
  }

  listBrains(): Promise<Brain[]> {
    return this.#conn.read(async (sql) =>
      (await sql`SELECT * FROM brains ORDER BY created_at, seq`).map(toBrain)
    );
  }

  findBrain(slugOrId: string): Promise<Brain | null> {
    return this.#conn.read(async (sql) => {
      const [row] = await sql`
        SELECT * FROM brains WHERE slug = ${slugOrId} OR id = ${slugOrId}
         ORDER BY created_at, seq LIMIT 1`;
      return row ? toBrain(row) : null;
    });
  }

  createBrain(
    input: { id: string; slug: string; name: string; visibility: Visibility },
  ): Promise<Brain> {
    return this.#conn.write(async (sql) => {
      this.#conn.touched("brains");
      const now = this.#conn.now().toISOString();
      const inserted = await sql`
        INSERT INTO brains (id, slug, name, visibility, created_at, updated_at)
        VALUES (${input.id}, ${input.slug}, ${input.name}, ${input.visibility}, ${now}, ${now})
        ON CONFLICT (slug) DO NOTHING`;
      if (inserted.count === 0) throw slugTaken(input.slug);
      return { ...input, created_at: now, updated_at: now };
    });
  }

  deleteBrain(brainId: string, options: { at: string }): Promise<BrainDeletion> {
    return this.#conn.write(async (sql) => {
      this.#conn.touched("brains");
      this.#conn.touched("documents");
      const [{ n: documents }] = await sql<{ n: number }[]>`
        SELECT count(*) AS n FROM documents WHERE brain_id = ${brainId}`;
      // Everything else goes by ON DELETE CASCADE; locks are named after the brain id
      // (`consolidate:<id>`), with no key to cascade on. The audit log stays on purpose.
      await sql`DELETE FROM locks WHERE strpos(name, ${brainId}) > 0`;
      await sql`DELETE FROM brains WHERE id = ${brainId}`;
      return { documents, ...await dropBrainFromTokens(sql, brainId, options.at) };
    });
  }

  renameBrain(brainId: string, change: { name?: string; slug?: string }): Promise<Brain> {
    return this.#conn.write(async (sql) => {
      this.#conn.touched("brains");
      if (change.slug !== undefined) {
        const [taken] = await sql`
          SELECT id FROM brains WHERE slug = ${change.slug} AND id <> ${brainId}`;
        if (taken) throw slugTaken(change.slug);
      }
      const at = this.#conn.now().toISOString();
      // A slug taken by another node since the check above fails the update: the same conflict.
      const [row] = await sql`
        UPDATE brains SET name = coalesce(${change.name ?? null}, name),
                          slug = coalesce(${change.slug ?? null}, slug), updated_at = ${at}
         WHERE id = ${brainId} RETURNING *`.catch((err) => {
        throw isUniqueViolation(err) ? afterFailedStatement(slugTaken(change.slug!, err)) : err;
      });
      if (!row) {
        throw new EngramError(
          "no_brain",
          `brain "${brainId}" not found; list brains with: engram brains list`,
        );
      }
      return toBrain(row);
    });
  }
}

function slugTaken(slug: string, cause?: unknown): EngramError {
  return new EngramError(
    "conflict",
    `brain slug "${slug}" is already taken; choose another --slug`,
    cause === undefined ? undefined : { cause },
  );
}
