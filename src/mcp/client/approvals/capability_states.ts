/**
 * @module Where each upstream capability stands against the operator's approvals: `pending` (never
 * approved), `approved` (the live definition is the pinned one, or the server cannot be reached to
 * say otherwise), `changed` (the server now lists another definition: the approval lapsed; a change
 * is never approved automatically), `revoked`, or `missing` (approved, but the server no longer
 * lists it). A pending capability whose definition, name aside, is that of an approved one is
 * flagged as a rename (a tool re-listed under a new name must be reviewed again, never inherit).
 */
import type { ApprovedKind, CapabilityApproval } from "../../../core/ports/approval_store.ts";
import { type PinnedCapability, shapeHash } from "./capability_pins.ts";

/** The state of one capability. */
export type CapabilityState = "pending" | "approved" | "changed" | "revoked" | "missing";

/** One capability with its approval and live definition. */
export interface CapabilityStatus {
  server: string;
  kind: ApprovedKind;
  name: string;
  state: CapabilityState;
  /** The definition listed now; null when the server was not reached or no longer lists it. */
  live: PinnedCapability | null;
  approval: CapabilityApproval | null;
  /** For a pending capability: the approved one it looks like under another name. */
  renamed_from?: string;
}

/**
 * States of one server's capabilities. `live` is what the server lists now, or null when it could
 * not be reached (approvals then stand as they are: a down server's tools stay listed and their
 * calls fail fast, rather than an outage rewriting what was approved).
 */
export async function capabilityStates(
  server: string,
  o: { live: readonly PinnedCapability[] | null; approvals: readonly CapabilityApproval[] },
): Promise<CapabilityStatus[]> {
  const { live, approvals } = o;
  const key = (kind: string, name: string) => `${kind}\u0000${name}`;
  const liveByKey = new Map((live ?? []).map((c) => [key(c.kind, c.name), c]));
  const approvalByKey = new Map(approvals.map((a) => [key(a.kind, a.name), a]));
  const out: CapabilityStatus[] = [];
  for (const a of approvals) {
    const now = liveByKey.get(key(a.kind, a.name)) ?? null;
    let state: CapabilityState;
    if (a.state === "revoked") state = "revoked";
    else if (live === null) state = "approved";
    else if (!now) state = "missing";
    else state = now.pin === a.pin ? "approved" : "changed";
    out.push({ server, kind: a.kind, name: a.name, state, live: now, approval: a });
  }
  // Approved definitions by shape; one that vanished from the listing is preferred as the origin.
  const vanished = new Map<string, string>();
  for (const a of approvals) {
    if (a.state !== "approved") continue;
    const shape = await shapeHash(a.kind, a.definition);
    if (!vanished.has(shape) || !liveByKey.has(key(a.kind, a.name))) vanished.set(shape, a.name);
  }
  for (const c of live ?? []) {
    if (approvalByKey.has(key(c.kind, c.name))) continue;
    const renamedFrom = vanished.get(c.shape);
    out.push({
      server,
      kind: c.kind,
      name: c.name,
      state: "pending",
      live: c,
      approval: null,
      ...(renamedFrom !== undefined ? { renamed_from: renamedFrom } : {}),
    });
  }
  const order = { tool: 0, prompt: 1, template: 2 };
  return out.sort((a, b) => order[a.kind] - order[b.kind] || a.name.localeCompare(b.name));
}
