/**
 * @module What the operator's approval commands decide: which capability a name means, what may
 * be approved (a listed definition, never one the server stopped listing), the diff between the
 * approved definition and the live one, and what drifted from a lockfile.
 */
import { createTwoFilesPatch } from "diff";
import { EngramError } from "../../../core/errors.ts";
import type { ApprovedKind, CapabilityApproval } from "../../../core/ports/approval_store.ts";
import { canonicalJson } from "../launch/launch_manifest.ts";
import { sortKeys } from "./approvals_lockfile.ts";
import type { CapabilityStatus } from "./capability_states.ts";
import type { ServerReview } from "./capability_review.ts";

/** The status of `name` in a review; `kind` narrows it when a prompt and a tool share the name. */
export function capabilityIn(
  review: ServerReview,
  name: string,
  kind?: ApprovedKind,
): CapabilityStatus {
  const matches = review.states.filter((s) => s.name === name && (!kind || s.kind === kind));
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    throw new EngramError(
      "invalid_argument",
      `${review.server} has a ${
        matches.map((m) => m.kind).join(" and a ")
      } named "${name}"; say which with --kind`,
    );
  }
  throw new EngramError(
    "not_found",
    `${review.server} lists no ${kind ?? "tool, prompt or resource template"} named "${name}"${
      review.reachable ? "" : ` (the server could not be reached: ${review.error?.message})`
    }; list them with: engram mcp approvals ${review.server}`,
  );
}

/** A capability that can be approved now: it must be listed live. */
export function approvable(status: CapabilityStatus): NonNullable<CapabilityStatus["live"]> {
  if (status.live) return status.live;
  throw new EngramError(
    "conflict",
    `${status.server} does not list ${status.kind} ${status.name} now, so there is no definition to approve; see: engram mcp discover ${status.server}`,
  );
}

/**
 * A unified diff from the approved definition to the live one (sorted keys, two-space JSON), or
 * of the live one alone when nothing was approved; empty when they are the same.
 */
export function definitionDiff(status: CapabilityStatus): string {
  const approved = status.approval ? pretty(status.approval.definition) : "";
  const live = status.live ? pretty(status.live.definition) : "";
  if (approved === live) return "";
  return createTwoFilesPatch(
    status.approval ? `approved ${status.approval.approved_at}` : "not approved",
    status.live ? "listed now" : "not listed now",
    approved,
    live,
    "",
    "",
    { context: 3 },
  ).split("\n").slice(1).join("\n");
}

/** How one pinned capability compares with the server now, for `approvals verify`. */
export interface Drift {
  server: string;
  kind: ApprovedKind;
  name: string;
  /** changed: another definition is listed; missing: not listed; unreachable: not checked. */
  drift: "changed" | "missing" | "unreachable";
  detail: string;
}

/** The pins of `approvals` that no longer hold against `reviews`. */
export function driftOf(
  approvals: readonly CapabilityApproval[],
  reviews: readonly ServerReview[],
): Drift[] {
  const out: Drift[] = [];
  for (const a of approvals) {
    if (a.state !== "approved") continue;
    const review = reviews.find((r) => r.server.toLowerCase() === a.server.toLowerCase());
    const base = { server: a.server, kind: a.kind, name: a.name };
    if (!review || !review.reachable) {
      out.push({
        ...base,
        drift: "unreachable",
        detail: review?.error?.message ?? "the server is not configured here",
      });
      continue;
    }
    const status = review.states.find((s) => s.kind === a.kind && s.name === a.name);
    if (!status?.live) {
      out.push({ ...base, drift: "missing", detail: "the server no longer lists it" });
    } else if (status.live.pin !== a.pin) {
      out.push({ ...base, drift: "changed", detail: changeOf(a, { review, live: status.live }) });
    }
  }
  return out;
}

/** Why a pin no longer holds against a live definition. */
function changeOf(
  a: CapabilityApproval,
  o: { review: ServerReview; live: NonNullable<CapabilityStatus["live"]> },
): string {
  if (a.identity === o.review.identity) return "its definition changed";
  if (a.identity !== o.review.v1Identity) {
    return "the server's launch or URL changed since it was pinned";
  }
  // docs/upstream.md#upgrading-from-manifest-v1
  const same = canonicalJson(a.definition) === canonicalJson(o.live.definition);
  return `pinned under launch manifest v1: the server's identity moved to manifest v2, which covers env values; ${
    same
      ? "its definition is unchanged, so the pin carries over: rewrite the lockfile with engram mcp approvals export FILE"
      : "and its definition changed too: review it with engram mcp approvals diff " +
        `${a.server} ${a.name}`
  }`;
}

function pretty(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + "\n";
}
