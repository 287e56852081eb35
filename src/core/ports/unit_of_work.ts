/**
 * @module The unit of work: several storage calls that commit together or not at all. Every write
 * of every port runs in one — its own, or the one its caller opened — so a flow that writes a
 * document, a session and a job (extraction, reflection, consolidation, a folder ingest) is atomic.
 */

/** The `cause` of the error a unit of work throws when a write inside failed and it rolled back. */
export const ROLLED_BACK = "unit-of-work-rolled-back";

/** An open unit of work. */
export interface Transaction {
  /**
   * Runs `fn` once the outermost unit of work has committed (never when it rolls back): change
   * announcements, embedding and other work that must not hold the write lock or see rolled-back
   * data. Hooks run in order; one that fails is logged and does not stop the others.
   */
  afterCommit(fn: () => void | Promise<void>): void;
}

/** Opens units of work over every port of one storage. */
export interface UnitOfWork {
  /**
   * Runs `fn` so that every storage call made from it (on any port of this storage, however deep)
   * belongs to one transaction: committed when `fn` resolves, rolled back when it throws — or when
   * a write inside failed unexpectedly, even if `fn` caught that (then this throws with cause
   * ROLLED_BACK: `storage_full` or `storage_corrupt` when that was the failure, else `internal`). Called inside another unit of work, it joins that one: there are no
   * savepoints, so writes of a nested call whose error the outer `fn` catches are kept. Callers
   * outside wait until it ends, so keep model and network calls out of it (use `afterCommit`).
   */
  withTransaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
}
