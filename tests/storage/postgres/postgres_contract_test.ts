/**
 * @module The storage contracts run against the PostgreSQL backend: one throwaway cluster for this
 * test process, and a fresh database copied from the migrated template per case, on the case's
 * clock. Skipped, saying why, where PostgreSQL cannot be had.
 */
import {
  openPostgresStorage,
  PostgresStorage,
} from "../../../src/storage/postgres/postgres_storage.ts";
import { storageContract } from "../contracts/all.ts";
import type {
  ContractBackend,
  ContractOpenOptions,
  ContractStorage,
} from "../contracts/backend.ts";
import { startCluster } from "./_cluster.ts";

/** Makes PostgreSQL fail a chunk insert whose body holds the marker, after the document row went in. */
function boomTrigger(marker: string): string {
  const pattern = `%${marker.replaceAll("'", "''")}%`;
  return `CREATE FUNCTION contract_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'boom: injected chunk insert failure'; END $$;
    CREATE TRIGGER contract_boom BEFORE INSERT ON chunks FOR EACH ROW
      WHEN (new.body LIKE '${pattern}') EXECUTE FUNCTION contract_boom();`;
}

const cluster = await startCluster();

if ("skip" in cluster) {
  console.log(cluster.skip);
} else {
  /** The databases open storages live in, by name, and the closes still under way. */
  const closing = new Map<string, Promise<void>>();
  const postgresBackend: ContractBackend = {
    name: "postgres",
    async open(options: ContractOpenOptions = {}): Promise<ContractStorage> {
      const db = options.reuse === undefined ? await cluster.createDatabase() : null;
      const name = options.reuse ?? db!.name;
      // A storage closed without waiting (the audit cases) finishes ending before the reopen.
      await closing.get(name);
      const storage = await openPostgresStorage({ url: cluster.url(name), now: options.now });
      const close = storage.close.bind(storage);
      return Object.assign(storage, {
        location: name,
        close(): Promise<void> {
          const done = close();
          closing.set(name, done);
          return done;
        },
        async [Symbol.asyncDispose]() {
          await close();
          if (db !== null) await db.drop();
        },
      });
    },
    async failChunkInserts(storage: ContractStorage, marker: string): Promise<void> {
      if (!(storage instanceof PostgresStorage)) throw new Error("not a PostgreSQL storage");
      await storage.connection.pool.unsafe(boomTrigger(marker));
    },
  };
  storageContract(postgresBackend);
}
