/** @module Opening the store and service a command runs on. */
import type { ResolvedConfig } from "../config/load.ts";
import { ensureDefaultBrain } from "../core/brains.ts";
import { EngramError } from "../core/errors.ts";
import { MemoryService } from "../core/memory_service.ts";
import type { CallerContext } from "../core/types.ts";
import { openDatabase } from "../storage/database.ts";
import { SqliteStore } from "../storage/sqlite_store.ts";

/** An open store and the service on it. */
export interface Runtime {
  store: SqliteStore;
  service: MemoryService;
  close(): void;
}

/** The caller for direct CLI commands: the local operator, all brains. */
export const CLI_CALLER: CallerContext = {
  clientId: "cli",
  transport: "cli",
  tier: "admin",
  brains: "*",
};

/** Creates the data directory, opens and migrates the database, and creates `default` on first run. */
export async function openRuntime(config: ResolvedConfig): Promise<Runtime> {
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
  const store = new SqliteStore(openDatabase(config.dbFile, { synchronous: config.synchronous }));
  try {
    await ensureDefaultBrain(store);
    const service = new MemoryService(store, { defaultBrain: config.defaultBrain });
    if (config.defaultBrain !== undefined) await service.brain(CLI_CALLER);
    return { store, service, close: () => store.close() };
  } catch (err) {
    store.close();
    throw err;
  }
}
