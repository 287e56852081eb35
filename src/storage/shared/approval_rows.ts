/**
 * @module Row → record mapping for the `capability_pins` table, shared by the SQLite and
 * PostgreSQL adapters: the columns and their meaning are the same on both; only the SQL differs.
 */
import type { ApprovedKind, CapabilityApproval } from "../../core/ports/approval_store.ts";
import type { Tier } from "../../core/types.ts";

/** A `capability_pins` row. */
export interface PinRow {
  server: string;
  kind: ApprovedKind;
  name: string;
  state: "approved" | "revoked";
  pin: string;
  definition: string;
  identity: string;
  expose_tier: Tier | null;
  expose_as: string | null;
  approved_by: string | null;
  approved_at: string;
  revoked_at: string | null;
}

/** A pin row as an approval (the definition parsed from its JSON text). */
export function toApproval(r: PinRow): CapabilityApproval {
  // expose_as is left out when unset, as in approvals read from a lockfile.
  const { expose_as, ...rest } = r;
  return { ...rest, definition: JSON.parse(r.definition), ...(expose_as ? { expose_as } : {}) };
}
