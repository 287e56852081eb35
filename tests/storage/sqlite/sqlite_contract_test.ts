/**
 * @module The storage contracts run against the SQLite backend: a fresh database file in a temp
 * directory per case, on the case's clock.
 */
import { openSqliteStorage, SqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";
import { storageContract } from "../contracts/all.ts";
import type {
  ContractBackend,
  ContractOpenOptions,
  ContractStorage,
} from "../contracts/backend.ts";

/** Makes SQLite abort a chunk insert whose body holds the marker, after the document row went in. */
function boomTrigger(marker: string): string {
  const pattern = `%${marker.replaceAll("'", "''")}%`;
  return `CREATE TRIGGER contract_boom BEFORE INSERT ON chunks WHEN new.body LIKE '${pattern}'
    BEGIN SELECT RAISE(ABORT, 'boom: injected chunk insert failure'); END;`;
}

const sqlite: ContractBackend = {
  name: "sqlite",
  async open(options: ContractOpenOptions = {}): Promise<ContractStorage> {
    const dir = options.reuse === undefined
      ? await Deno.makeTempDir({ prefix: "engram-contract-" })
      : null;
    const file = options.reuse ?? `${dir}/engram.db`;
    const storage = openSqliteStorage(file, { now: options.now });
    return Object.assign(storage, {
      location: file,
      async [Symbol.asyncDispose]() {
        storage.close();
        if (dir !== null) await Deno.remove(dir, { recursive: true });
      },
    });
  },
  failChunkInserts(storage: ContractStorage, marker: string): Promise<void> {
    if (!(storage instanceof SqliteStorage)) throw new Error("not a SQLite storage");
    storage.connection.db.exec(boomTrigger(marker));
    return Promise.resolve();
  },
};

storageContract(sqlite);
