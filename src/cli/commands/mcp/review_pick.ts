/**
 * @module Step 5 of `engram mcp review` (docs/upstream.md#review-from-import-to-an-exposed-tool):
 * the server's tools, prompts and resource templates with their definitions (upstream text,
 * escaped), the operator's picks — names or globs, from `--approve` or asked on a terminal —
 * approved and exposed at `--expose`, and what agents now see of the server.
 */
import type { Tier } from "../../../core/types.ts";
import { EngramError } from "../../../core/errors.ts";
import { approvable } from "../../../mcp/client/approvals/approval_actions.ts";
import { approvalOf, type ServerReview } from "../../../mcp/client/approvals/capability_review.ts";
import type { CapabilityStatus } from "../../../mcp/client/approvals/capability_states.ts";
import { exposurePlan } from "../../../mcp/client/exposure/exposure_plan.ts";
import { headExcerpt } from "../../../mcp/client/upstream_text.ts";
import type { CommandContext } from "../../context.ts";
import type { UpstreamSetup } from "../../upstreams.ts";
import { approvalBook } from "../../upstream_wiring.ts";

/** One capability as review lists it. */
export interface ListedCapability {
  kind: CapabilityStatus["kind"];
  name: string;
  state: CapabilityStatus["state"];
  /** Its description (or a template's URI template), escaped and cut to one line. */
  description: string;
  /** A tool's or prompt's arguments, required ones marked `*`. */
  arguments: string[];
}

/** The capabilities of a review, in listing order. */
export function listCapabilities(review: ServerReview): ListedCapability[] {
  return review.states.filter((s) => s.live).map((s) => {
    const d = s.live!.definition as Record<string, unknown>;
    const text = [d.description, d.uriTemplate].filter((t) => typeof t === "string").join(" ");
    return {
      kind: s.kind,
      name: s.name,
      state: s.state,
      description: headExcerpt(text, 160),
      arguments: argumentsOf(d),
    };
  });
}

function argumentsOf(d: Record<string, unknown>): string[] {
  const schema = d.inputSchema as { properties?: object; required?: string[] } | undefined;
  if (schema?.properties) {
    return Object.keys(schema.properties).map((k) =>
      headExcerpt(k, 40) + (schema.required?.includes(k) ? "*" : "")
    );
  }
  const args = d.arguments as { name?: string; required?: boolean }[] | undefined;
  return Array.isArray(args)
    ? args.map((a) => headExcerpt(String(a.name ?? "?"), 40) + (a.required ? "*" : ""))
    : [];
}

/** Prints the capabilities (step 5's list). */
export function printCapabilities(say: (l: string) => void, listed: ListedCapability[]): void {
  if (listed.length === 0) say("  it lists no tool, prompt or resource template");
  for (const c of listed) {
    const args = c.arguments.length ? `(${c.arguments.join(", ")})` : "";
    say(`  ${c.kind} ${headExcerpt(c.name, 80)}${args} [${c.state}]: ${c.description || "-"}`);
  }
}

/**
 * The picks asked on a terminal — names or globs separated by spaces; empty (or the end of input)
 * picks nothing — asked again, saying why, while one names nothing `review` lists.
 */
export async function askPicks(
  ctx: CommandContext,
  o: { review: ServerReview; read: () => Promise<string | null> },
): Promise<CapabilityStatus[]> {
  for (;;) {
    ctx.out.warn("approve which (names or globs, separated by spaces; empty: none)? ");
    const picks = ((await o.read()) ?? "").split(/\s+/).filter((p) => p !== "");
    const miss = picks.find((p) => matching(o.review, p).length === 0);
    if (miss === undefined) return picked(o.review, picks);
    ctx.out.warn(
      `${JSON.stringify(miss)} names nothing ${o.review.server} lists (${
        listedNames(o.review)
      }); pick again, or nothing for none`,
    );
  }
}

/** A glob (`*`, `?`) as an anchored pattern. */
function globPattern(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/**
 * The live capabilities `picks` (from `--approve`) name; a pick that names none is `not_found`,
 * listing the names, before anything is approved.
 */
export function picked(review: ServerReview, picks: readonly string[]): CapabilityStatus[] {
  const out = new Set<CapabilityStatus>();
  for (const pick of picks) {
    const hits = matching(review, pick);
    if (hits.length === 0) {
      throw new EngramError(
        "not_found",
        `--approve ${JSON.stringify(pick)} names nothing ${review.server} lists (${
          listedNames(review)
        }); nothing was approved`,
      );
    }
    for (const h of hits) out.add(h);
  }
  return [...out];
}

/** The live capabilities whose names `pick` (a name or glob) matches. */
function matching(review: ServerReview, pick: string): CapabilityStatus[] {
  const re = globPattern(pick);
  return review.states.filter((s) => s.live && re.test(s.name));
}

function listedNames(review: ServerReview): string {
  return review.states.filter((s) => s.live).map((s) => s.name).join(", ") || "it lists nothing";
}

/** Approves `targets` (each exposed at `expose`, or not exposed); returns one line per approval. */
export async function approvePicked(
  u: UpstreamSetup,
  o: { review: ServerReview; targets: CapabilityStatus[]; expose: Tier | null; by: string },
): Promise<string[]> {
  const book = approvalBook(u);
  const at = new Date().toISOString();
  const lines: string[] = [];
  for (const status of o.targets) {
    await book.put({
      ...approvalOf(o.review.server, approvable(status), {
        identity: o.review.identity,
        expose: o.expose,
        by: o.by,
        at,
      }),
      // A name chosen earlier with `approvals approve --as` holds.
      ...(status.approval?.expose_as ? { expose_as: status.approval.expose_as } : {}),
    });
    lines.push(
      `approved ${status.kind} ${status.name}${o.expose ? ` (exposed at ${o.expose})` : ""}`,
    );
  }
  return lines;
}

/** The names agents see of `server` now: tools and prompts (`mcp_…`) and templates (URIs). */
export async function exposedNames(u: UpstreamSetup, server: string): Promise<string[]> {
  const plan = await exposurePlan(u.catalog, {
    approvals: await approvalBook(u).list(),
    sightings: await u.runtime.approvals.listSightings(),
  });
  const mine = (s: string) => s.toLowerCase() === server.toLowerCase();
  return [
    ...plan.tools.filter((t) => mine(t.server)).map((t) => t.exposed),
    ...plan.prompts.filter((p) => mine(p.server)).map((p) => p.exposed),
    ...plan.templates.filter((t) => mine(t.server)).map((t) => t.exposed),
  ];
}
