/**
 * @module Where approvals are kept: the database, or — with `mcp.approvals_lock: PATH` — a committed
 * lockfile that is the source of truth. Then approving and revoking rewrite the lockfile (for the
 * team to review and commit) and the database's approvals are neither read nor changed.
 */
import { EngramError } from "../../core/errors.ts";
import type {
  ApprovalStore,
  ApprovedKind,
  CapabilityApproval,
} from "../../core/ports/approval_store.ts";
import { readLockfile, writeLockfile } from "./approvals_lockfile.ts";

/** The approvals engram goes by. */
export interface ApprovalBook {
  /** `database`, or the lockfile's path. */
  readonly source: string;
  /** Every approval, or those of one server (compared without case). */
  list(server?: string): Promise<CapabilityApproval[]>;
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
  return {
    source: file,
    list: async (server) =>
      (await load()).filter((a) =>
        server === undefined || a.server.toLowerCase() === server.toLowerCase()
      ),
    put: async (a) => {
      const same = (b: CapabilityApproval) =>
        b.server.toLowerCase() === a.server.toLowerCase() && b.kind === a.kind && b.name === a.name;
      await writeLockfile(file, [...(await load()).filter((b) => !same(b)), a]);
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

/** One capability's approval in a book, or null. */
export async function findApproval(
  book: ApprovalBook,
  server: string,
  capability: { kind: ApprovedKind; name: string },
): Promise<CapabilityApproval | null> {
  return (await book.list(server)).find((a) =>
    a.kind === capability.kind && a.name === capability.name
  ) ?? null;
}
