/**
 * @module The approvals port: operator approvals of upstream capabilities, each pinned to the
 * exact definition approved, and the definitions last seen live (for pending and changed states,
 * diffs, and recognising renames).
 */
import type { Tier } from "../types.ts";

/** The kinds of upstream capability an operator approves. */
export type ApprovedKind = "tool" | "prompt" | "template";

/** An approval, active or revoked. */
export interface CapabilityApproval {
  /** Server name (compared without case). */
  server: string;
  kind: ApprovedKind;
  name: string;
  state: "approved" | "revoked";
  /** `sha256:<hex>` over the definition and the server identity. */
  pin: string;
  /** The approved definition (pinned fields only): what agents are shown while it holds. */
  definition: Record<string, unknown>;
  /** The server identity the pin includes (manifest digest, or URL and header keys). */
  identity: string;
  /** The tier at which agents see it through engram's server; null: not exposed. */
  expose_tier: Tier | null;
  /** The name agents see a tool by when the operator chose one (`--as`); else `mcp_<server>_<tool>`. */
  expose_as?: string | null;
  approved_by: string | null;
  approved_at: string;
  revoked_at: string | null;
}

/** Which capability an approval is of: its server (compared without case), kind and name. */
export interface ApprovalKey {
  server: string;
  kind: ApprovedKind;
  name: string;
}

/** A definition as last seen live. */
export interface CapabilitySighting {
  server: string;
  kind: ApprovedKind;
  name: string;
  /** Its pin, as computed when seen. */
  hash: string;
  definition: Record<string, unknown>;
  first_seen_at: string;
  last_seen_at: string;
}

/** Persistence of approvals and sightings. */
export interface ApprovalStore {
  /** Every approval (of one server when given), by server, kind and name. */
  listApprovals(server?: string): Promise<CapabilityApproval[]>;
  /** One approval, or null. */
  findApproval(key: ApprovalKey): Promise<CapabilityApproval | null>;
  /** Stores an approval, replacing any earlier one of the same capability. */
  putApproval(approval: CapabilityApproval): Promise<CapabilityApproval>;
  /** Replaces every approval with `approvals` (a lockfile import), in one go. */
  replaceApprovals(approvals: readonly CapabilityApproval[]): Promise<void>;
  /** Deletes an approval outright; false when there was none. */
  deleteApproval(key: ApprovalKey): Promise<boolean>;
  /** The definitions last seen live (of one server when given). */
  listSightings(server?: string): Promise<CapabilitySighting[]>;
  /**
   * Records what a server lists now: sightings of capabilities it still lists are updated (their
   * first_seen_at kept), new ones added, ones it no longer lists removed.
   */
  recordSightings(server: string, seen: readonly SeenCapability[], at: string): Promise<void>;
}

/** A capability as a server lists it now: its definition and that definition's hash. */
export interface SeenCapability {
  kind: ApprovedKind;
  name: string;
  hash: string;
  definition: Record<string, unknown>;
}
