/**
 * @module Where approvals are kept: the database, or — with `mcp.approvals_lock: PATH` — a committed
 * lockfile that is the source of truth. Then approving and revoking rewrite the lockfile (for the
 * team to review and commit) and the database's approvals are neither read nor changed.
 */
import { EngramError } from "../../../core/errors.ts";
import type {
  ApprovalKey,
  ApprovalStore,
  CapabilityApproval,
} from "../../../core/ports/approval_store.ts";
import { readLockfile, writeLockfile } from "./approvals_lockfile.ts";

/** The approvals engram goes by. */
export interface ApprovalBook {
  /** `database`, or the lockfile's path. */
  readonly source: string;
  /** Every approval, or those of one server (compared without case). */
  list(server?: string): Promise<CapabilityApproval[]>;
  /** One capability's approval (the server compared without case), or null. */
  find(key: ApprovalKey): Promise<CapabilityApproval | null>;
  /** Stores an approval, replacing an earlier one of the same capability. */
  put(approval: CapabilityApproval): Promise<void>;
  /** Replaces every approval (a lockfile import into the database). */
  replaceAll(approvals: readonly CapabilityApproval[]): Promise<void>;
}

/** Approvals in the database. */
export function databaseBook(store: ApprovalStore): ApprovalBook {
  return {
    source: "database",
    list: (server) => store.listApprovals(server),
    find: (key) => store.findApproval(key),
    put: async (a) => void await store.putApproval(a),
    replaceAll: (approvals) => store.replaceApprovals(approvals),
  };
}

/** Approvals in a lockfile; a missing file is an empty book until the first approval writes it. */
export function lockfileBook(file: string): ApprovalBook {
  const load = async () => {
    try {
      return await readLockfile(file);
    } catch (err) {
      if (err instanceof EngramError && err.code === "not_found") return [];
      throw err;
    }
  };
  const same = (a: ApprovalKey, b: ApprovalKey) =>
    a.server.toLowerCase() === b.server.toLowerCase() && a.kind === b.kind && a.name === b.name;
  return {
    source: file,
    list: async (server) =>
      (await load()).filter((a) =>
        server === undefined || a.server.toLowerCase() === server.toLowerCase()
      ),
    find: async (key) => (await load()).find((a) => same(a, key)) ?? null,
    put: async (a) => {
      await writeLockfile(file, [...(await load()).filter((b) => !same(b, a)), a]);
    },
    replaceAll: () =>
      Promise.reject(
        new EngramError(
          "conflict",
          `approvals are read from the lockfile ${file} (mcp.approvals_lock); edit or replace that file instead of importing`,
        ),
      ),
  };
}
