/**
 * @module Store-level test helpers: a SqliteStorage on a temp file, and documents written straight
 * through the port (no service), so these tests pin the storage contract alone.
 */
import { newId } from "../../src/core/ids.ts";
import type { Brain, DocumentRecord } from "../../src/core/types.ts";
import { openSqliteStorage, type SqliteStorage } from "../../src/storage/sqlite_storage.ts";
import { tempDir } from "../helpers.ts";

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
 * exists), returning its record.
 */
export async function writeDoc(
  storage: SqliteStorage,
  brainId: string,
  path: string,
  bodies: string[],
  options: { headings?: string[]; at?: string } = {},
): Promise<DocumentRecord> {
  const existing = await storage.documents.findDocument(brainId, { path });
  const at = options.at ?? new Date().toISOString();
  const content = bodies.join("\n\n");
  let offset = 0;
  return storage.documents.writeVersion({
    document: {
      id: existing?.id ?? newId("doc"),
      brain_id: brainId,
      title: path.split("/").pop()!,
      path,
      source: "ingest",
      content_type: "text/markdown",
      byte_size: content.length,
      checksum_sha256: "0".repeat(64),
      metadata: {},
      commit_sha: "0".repeat(40),
      created_at: existing?.created_at ?? at,
      updated_at: at,
      deleted_at: null,
    },
    content,
    chunks: bodies.map((body, ordinal) => {
      const start = offset;
      offset += body.length + 2;
      return {
        ordinal,
        heading_path: options.headings ?? [],
        body,
        start_offset: start,
        end_offset: start + body.length,
      };
    }),
    links: [],
    expectedVersion: existing?.version,
  });
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
