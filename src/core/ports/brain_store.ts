/** @module The brains port: the list of brains, and creating, renaming and deleting one. */
import type { Brain, Visibility } from "../types.ts";

/** What deleting a brain removed: its document count, and the tokens it revoked or narrowed. */
export interface BrainDeletion {
  /** Documents deleted, forgotten ones included. */
  documents: number;
  /** Live tokens scoped to this brain alone, now revoked. */
  revokedTokens: string[];
  /** Live tokens scoped to several brains, which lost this one. */
  narrowedTokens: string[];
}

/** Persistence of brains. */
export interface BrainStore {
  /** All brains, oldest first. */
  listBrains(): Promise<Brain[]>;
  /** A brain by slug or id, or null. */
  findBrain(slugOrId: string): Promise<Brain | null>;
  /** Inserts a brain; throws `conflict` when the slug is taken. */
  createBrain(
    input: { id: string; slug: string; name: string; visibility: Visibility },
  ): Promise<Brain>;
  /**
   * Permanently deletes a brain and every row of it (documents, versions, chunks and their index
   * and vectors, tags, links, sessions, messages, jobs, locks); tokens scoped to it alone are
   * revoked at `at`, tokens scoped to several brains lose it. The audit log stays.
   */
  deleteBrain(brainId: string, options: { at: string }): Promise<BrainDeletion>;
  /** Changes a brain's name and/or slug; throws `conflict` when the slug is taken. */
  renameBrain(brainId: string, change: { name?: string; slug?: string }): Promise<Brain>;
}
