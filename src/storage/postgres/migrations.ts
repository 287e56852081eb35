/**
 * @module Versioned PostgreSQL schema migrations, tracked in `engram_schema` and applied in one
 * transaction under an advisory lock, so nodes that start together migrate once; a node refuses a
 * schema newer than it knows (docs/architecture.md#postgresql explains rolling upgrades).
 */
import type postgres from "postgres";
import { EngramError } from "../../core/errors.ts";
import { OAUTH_SCHEMA } from "./oauth/oauth_schema.ts";
import { UPSTREAM_CREDENTIALS_SCHEMA } from "./oauth/upstream_credentials_schema.ts";
import { CORE_SCHEMA } from "./schema.ts";
import { VECTORS_MIGRATION } from "./postgres_vectors.ts";
import { SEARCH_MIGRATION } from "./search/search_schema.ts";

/** One schema change; its place in MIGRATIONS (1-based) is the version it brings the schema to. */
export interface Migration {
  /** What it adds, for the operator's log. */
  name: string;
  /** The statements, run as one script inside the migrating transaction. */
  sql: string;
}

/**
 * Ordered migrations; index + 1 is the schema version. Never edit a released entry: append one.
 * The full-text index (search/) and the vectors (postgres_vectors.ts) append their own entries
 * after the core tables; later entries mirror later SQLite migrations.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    name: "core tables (the SQLite schema at its version 17, without the search index)",
    sql: CORE_SCHEMA + OAUTH_SCHEMA + UPSTREAM_CREDENTIALS_SCHEMA,
  },
  SEARCH_MIGRATION,
  VECTORS_MIGRATION,
  {
    name: "the operator flag of tokens (SQLite migration 18)",
    sql: "ALTER TABLE tokens ADD COLUMN operator boolean NOT NULL DEFAULT false;",
  },
];

/**
 * The advisory lock migrations run under: the two keys spell "engr" and 1. PostgreSQL scopes
 * advisory locks to the database, so only engram nodes on the same database wait for it.
 */
const MIGRATION_LOCK = [0x656e6772, 1] as const;

/** What a migration run found and did. */
export interface MigrationResult {
  /** The version the database was at before. */
  from: number;
  /** The version it is at now. */
  to: number;
}

/** Brings the schema to the newest version; safe when several nodes start at once. */
export async function migrate(
  sql: postgres.Sql,
  options: { migrations?: readonly Migration[] } = {},
): Promise<MigrationResult> {
  const migrations = options.migrations ?? MIGRATIONS;
  const known = migrations.length;
  const seen = await schemaVersion(sql);
  if (seen !== null) refuseNewer(seen, known);
  if (seen === known) return { from: seen, to: seen };
  return await sql.begin(async (tx) => {
    // Waiting for another node's migration, or building an index over a large table, may take
    // longer than storage.statement_timeout_ms allows a call.
    await tx`SET LOCAL statement_timeout = 0`;
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK[0]}, ${MIGRATION_LOCK[1]})`;
    await tx.unsafe(
      `CREATE TABLE IF NOT EXISTS engram_schema (
         one boolean PRIMARY KEY DEFAULT true CHECK (one),
         version integer NOT NULL
       )`,
    );
    // Read again under the lock: another node may have migrated while this one waited.
    const [row] = await tx<{ version: number }[]>`SELECT version FROM engram_schema`;
    const from = row?.version ?? 0;
    refuseNewer(from, known);
    for (let v = from; v < known; v++) await tx.unsafe(migrations[v].sql);
    await tx`INSERT INTO engram_schema (one, version) VALUES (true, ${known})
             ON CONFLICT (one) DO UPDATE SET version = excluded.version`;
    return { from, to: known };
  });
}

/** The schema version the database is at, or null when engram never migrated it. */
export async function schemaVersion(sql: postgres.ISql): Promise<number | null> {
  const [{ exists }] = await sql<{ exists: boolean }[]>`
    SELECT to_regclass('engram_schema') IS NOT NULL AS exists`;
  if (!exists) return null;
  const [row] = await sql<{ version: number }[]>`SELECT version FROM engram_schema`;
  return row?.version ?? null;
}

/** Refuses a database migrated by a newer engram, naming both versions and the fix. */
function refuseNewer(seen: number, known: number): void {
  if (seen <= known) return;
  throw new EngramError(
    "internal",
    `the PostgreSQL schema is at version ${seen}, newer than this engram knows (${known}); upgrade this node to the version the other nodes run`,
  );
}
