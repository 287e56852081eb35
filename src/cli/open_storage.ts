/**
 * @module Opening the configured storage backend (docs/configuration.md#storage): the SQLite file
 * in the data directory, or a PostgreSQL database several `engram serve` nodes share. PostgreSQL's
 * client is loaded only when it is configured, so the embedded default never loads it.
 */
import type { ResolvedConfig } from "../config/load.ts";
import { EngramError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { Storage } from "../core/ports/storage.ts";
import { openSqliteStorage } from "../storage/sqlite/sqlite_storage.ts";

/** An open storage; closing a PostgreSQL one resolves once its pending rows are written. */
export interface OpenStorage extends Storage {
  close(): void | Promise<void>;
}

/** Opens (creating and migrating) the storage `config.storage` names. */
export async function openStorage(
  config: ResolvedConfig,
  options: { logger: Logger },
): Promise<OpenStorage> {
  const backend = config.storage;
  if (backend.backend === "postgres") {
    const { openPostgresStorage } = await import("../storage/postgres/postgres_storage.ts");
    return await openPostgresStorage({
      url: backend.url,
      poolSize: backend.poolSize,
      statementTimeoutMs: backend.statementTimeoutMs,
      sslmode: backend.sslmode,
      searchCacheMb: config.searchCacheMb,
      logger: options.logger,
    });
  }
  try {
    Deno.mkdirSync(config.dataDir, { recursive: true });
  } catch (err) {
    throw new EngramError(
      "internal",
      `cannot create data directory ${config.dataDir}: ${
        (err as Error).message
      }; pass --data DIR or set ENGRAM_DATA_DIR`,
      { cause: err },
    );
  }
  return openSqliteStorage(config.dbFile, {
    synchronous: config.synchronous,
    searchCacheMb: config.searchCacheMb,
    logger: options.logger,
  });
}

/** Refuses a command that works on the SQLite file alone when PostgreSQL is configured. */
export function requireSqlite(config: ResolvedConfig, command: string, instead: string): void {
  if (config.storage.backend === "sqlite") return;
  throw new EngramError(
    "invalid_argument",
    `engram ${command} works on the SQLite file, but storage.backend is postgres; ${instead}`,
  );
}

/** The database for the start-up log: the SQLite file, or the PostgreSQL server (no password). */
export function describeDatabase(config: ResolvedConfig): string {
  if (config.storage.backend === "sqlite") return config.dbFile;
  try {
    const u = new URL(config.storage.url);
    return `PostgreSQL ${u.hostname || "localhost"}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "PostgreSQL (storage.url)";
  }
}
