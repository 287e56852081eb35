/**
 * @module Opening PostgreSQL storages for the backend's own tests (beyond the contract suites): a
 * fresh migrated database per test from the module's throwaway cluster, one or several storages
 * on it (several nodes of one database), dropped when the test ends.
 */
import {
  openPostgresStorage,
  type PostgresStorage,
  type PostgresStorageOptions,
} from "../../../src/storage/postgres/postgres_storage.ts";
import { type Brain } from "../../../src/core/types.ts";
import { newBrain } from "../contracts/backend.ts";
import type { Cluster } from "./_cluster.ts";

/** Storages on one fresh database; disposing closes them and drops it. */
export interface Nodes extends AsyncDisposable {
  /** The database's URL. */
  url: string;
  /** Opens another storage (another node) on the same database. */
  open(options?: Partial<PostgresStorageOptions>): Promise<PostgresStorage>;
}

/** A fresh database of `cluster` and a way to open storages on it. */
export async function freshDatabase(cluster: Cluster): Promise<Nodes> {
  const db = await cluster.createDatabase();
  const opened: PostgresStorage[] = [];
  return {
    url: db.url,
    async open(options: Partial<PostgresStorageOptions> = {}) {
      const storage = await openPostgresStorage({ url: db.url, ...options });
      opened.push(storage);
      return storage;
    },
    async [Symbol.asyncDispose]() {
      await Promise.all(opened.map((s) => s.close()));
      await db.drop();
    },
  };
}

/** One storage on a fresh database, with a brain `default`. */
export async function oneNode(
  cluster: Cluster,
  options: Partial<PostgresStorageOptions> = {},
): Promise<{ storage: PostgresStorage; brain: Brain } & AsyncDisposable> {
  const nodes = await freshDatabase(cluster);
  try {
    const storage = await nodes.open(options);
    const brain = await newBrain(storage.brains, "default");
    return { storage, brain, [Symbol.asyncDispose]: () => nodes[Symbol.asyncDispose]() };
  } catch (err) {
    await nodes[Symbol.asyncDispose]();
    throw err;
  }
}
