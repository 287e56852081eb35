/** @module The named-lock port: mutual exclusion across every process sharing the storage. */
import type { LockHolder } from "../types.ts";

/** Named locks with a time to live, so a crashed holder frees its lock. */
export interface LockStore {
  /**
   * Takes the named lock for `ttlMs` unless someone else holds an unexpired one; returns null
   * when taken, else the current holder.
   */
  acquireLock(name: string, holder: string, ttlMs: number): Promise<LockHolder | null>;
  /** Extends a held lock. */
  renewLock(name: string, holder: string, ttlMs: number): Promise<void>;
  /** Releases the lock if `holder` holds it. */
  releaseLock(name: string, holder: string): Promise<void>;
}
