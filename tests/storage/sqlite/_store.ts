/**
 * @module Store-level test helpers: a SqliteStorage on a temp file, documents written straight
 * through the port (no service), so these tests pin the storage contract alone, and a memory
 * search through the service for the search and ranking tests.
 */
import { newId } from "../../../src/core/ids.ts";
import type { Scope } from "../../../src/core/limits.ts";
import type { MemoryService } from "../../../src/core/memory_service.ts";
import type {
  Brain,
  DocumentRecord,
  SearchGroup,
  SearchHit,
  SearchSort,
} from "../../../src/core/types.ts";
import {
  openSqliteStorage,
  type SqliteStorage,
} from "../../../src/storage/sqlite/sqlite_storage.ts";
import { ADMIN, tempDir } from "../../helpers.ts";
import { writeDoc as writeContractDoc } from "../contracts/backend.ts";

/** A store on a fresh file with one brain; disposing closes it and removes the directory. */
export async function openStore(): Promise<
  { storage: SqliteStorage; brain: Brain; file: string; dir: string } & AsyncDisposable
> {
  const dir = await tempDir();
  const file = `${dir.path}/engram.db`;
  const storage = openSqliteStorage(file);
  const brain = await storage.brains.createBrain({
    id: newId("brn"),
    slug: "default",
    name: "Default",
    visibility: "private",
  });
  return {
    storage,
    brain,
    file,
    dir: dir.path,
    async [Symbol.asyncDispose]() {
      storage.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** Another brain in the same store. */
export function otherBrain(storage: SqliteStorage, slug = "other"): Promise<Brain> {
  return storage.brains.createBrain({ id: newId("brn"), slug, name: slug, visibility: "private" });
}

/**
 * Writes a document at `path` whose chunks have the given bodies (a new version when the path
 * exists), returning its record: the contracts' writeDoc, at the real time unless `at` is given
 * and with a time-ordered id as the service makes them.
 */
export function writeDoc(
  storage: SqliteStorage,
  brainId: string,
  path: string,
  bodies: string[],
  options: { headings?: string[]; at?: string } = {},
): Promise<DocumentRecord> {
  return writeContractDoc(storage.documents, brainId, path, bodies, {
    ...options,
    at: options.at ?? new Date().toISOString(),
    id: newId("doc"),
  });
}

/** The options of `find`: any of the search arguments, else ten hits of any scope by relevance. */
export interface FindOptions {
  top_k?: number;
  scope?: Scope;
  sort?: SearchSort;
  brain?: string;
  group?: SearchGroup;
}

/** The hits of an admin's memory search for `query`. */
export async function find(
  service: MemoryService,
  query: string,
  options: FindOptions = {},
): Promise<SearchHit[]> {
  const r = await service.search(ADMIN, {
    query,
    brain: options.brain,
    top_k: options.top_k ?? 10,
    scope: options.scope ?? "all",
    sort: options.sort ?? "relevance",
    group: options.group,
  });
  return r.hits;
}

/** The paths of `hits`, in order. */
export const paths = (hits: SearchHit[]): string[] => hits.map((h) => h.path);

/** `n` distinct filler words `${tag}0 ${tag}1 …`, to pad a note without adding a query word. */
export const filler = (n: number, tag: string): string =>
  Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
