/**
 * @module `engram mcp discover NAME`: connect to one upstream server and list what it offers —
 * tools, resources, resource templates and prompts — each tool, prompt and template with its
 * approval state (pending, approved, changed, revoked), recording what was seen for later diffs.
 */
import { EngramError } from "../../../core/errors.ts";
import type { CapabilityStatus } from "../../../mcp/client/approvals/capability_states.ts";
import type { ServerReview } from "../../../mcp/client/approvals/capability_review.ts";
import { type CatalogEntry, findEntry } from "../../../mcp/client/upstream_catalog.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { untilInterrupted } from "../../interrupt.ts";
import { table } from "../../output.ts";
import { reviewServers, withUpstreams } from "../../upstreams.ts";

/** Usage of `engram mcp discover`. */
export const MCP_DISCOVER_SPEC: CommandSpec = {
  name: "mcp discover",
  usage: "engram mcp discover NAME [--json]",
  summary:
    "Connect to upstream server NAME and list its tools, resources, resource templates and prompts, with the approval state of each tool, prompt and template (pending, approved, changed, revoked, missing).",
  options: {
    json: { type: "boolean", help: "print the listings as JSON, exactly as the server sent them" },
  },
  positionals: [1, 1],
};

/** Runs `engram mcp discover`. */
export async function mcpDiscover(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_DISCOVER_SPEC, ctx.out);
  if (!args) return 0;
  const flags = configFlags(args.values);
  return await untilInterrupted(
    ctx,
    (signal) =>
      withUpstreams(ctx, flags, { mode: "mcp-live" }, async (u) => {
        const entry = findEntry(u.catalog, args.positionals[0]);
        if (entry.problem) {
          throw new EngramError(
            "invalid_argument",
            `server "${entry.config.name}" ${entry.problem}`,
          );
        }
        const [review] = await reviewServers(u, ctx, [entry], { interactive: true, signal });
        if (!review.reachable) throw review.error!;
        if (args.values.json) ctx.out.json(discoverJson(review));
        else printDiscovery(ctx, review, entry);
        return 0;
      }),
  );
}

function discoverJson(review: ServerReview) {
  const d = review.discovery;
  const stateOf = (kind: string, name: string) => {
    const s = review.states.find((x) => x.kind === kind && x.name === name);
    return s ? { state: s.state, ...(s.renamed_from ? { renamed_from: s.renamed_from } : {}) } : {};
  };
  return {
    server: review.server,
    identity: review.identity,
    server_info: d.identity?.serverInfo ?? null,
    protocol_version: d.identity?.protocolVersion ?? null,
    tools: d.tools.map((t) => ({ ...t, approval: stateOf("tool", t.name) })),
    resources: d.resources,
    resource_templates: d.resourceTemplates.map((t) => ({
      ...t,
      approval: stateOf("template", t.name),
    })),
    prompts: d.prompts.map((p) => ({ ...p, approval: stateOf("prompt", p.name) })),
    not_listed: review.states.filter((s) => s.state === "missing").map((s) => ({
      kind: s.kind,
      name: s.name,
    })),
  };
}

function printDiscovery(ctx: CommandContext, review: ServerReview, entry: CatalogEntry): void {
  const d = review.discovery;
  const info = d.identity?.serverInfo;
  ctx.out.line(
    `${review.server}: ${info ? `${info.name} ${info.version}` : "?"}, protocol ${
      d.identity?.protocolVersion ?? "?"
    }, in ${Math.round(d.elapsed_ms)} ms`,
  );
  const stateCell = (s: CapabilityStatus | undefined) =>
    s ? `${s.state}${s.renamed_from ? ` (was ${s.renamed_from}?)` : ""}` : "";
  const find = (kind: string, name: string) =>
    review.states.find((s) => s.kind === kind && s.name === name);
  section(ctx, "tools", [
    ["name", "approval", "description"],
    ...d.tools.map((t) => [t.name, stateCell(find("tool", t.name)), oneLine(t.description)]),
  ]);
  section(ctx, "resources", [
    ["uri", "name", "type"],
    ...d.resources.map((r) => [r.uri, r.name, r.mimeType ?? ""]),
  ]);
  section(ctx, "resource templates", [
    ["uri template", "name", "approval"],
    ...d.resourceTemplates.map((t) => [t.uriTemplate, t.name, stateCell(find("template", t.name))]),
  ]);
  section(ctx, "prompts", [
    ["name", "approval", "description"],
    ...d.prompts.map((p) => [p.name, stateCell(find("prompt", p.name)), oneLine(p.description)]),
  ]);
  const missing = review.states.filter((s) => s.state === "missing");
  if (missing.length) {
    ctx.out.line("");
    ctx.out.line(
      `approved but no longer listed: ${missing.map((s) => `${s.kind} ${s.name}`).join(", ")}`,
    );
  }
  const pending = review.states.filter((s) => s.state === "pending" || s.state === "changed");
  if (pending.length) {
    ctx.out.line("");
    // Approving alone offers nothing to agents: the hint says so, and both ways to expose.
    const where = entry.origin === "yaml" && entry.yaml.name
      ? `, or expose: { tier: read } in its entry at ${entry.yaml.name.file}:${entry.yaml.name.line}`
      : "";
    ctx.out.line(
      `${pending.length} to review: engram mcp approvals diff ${review.server} NAME, then engram mcp approvals approve ${review.server} NAME --expose read|write|admin (an approved tool is not offered to agents until exposed: --expose${where})`,
    );
  }
}

function section(ctx: CommandContext, title: string, rows: string[][]): void {
  ctx.out.line("");
  if (rows.length === 1) {
    ctx.out.line(`${title}: none`);
    return;
  }
  ctx.out.line(`${title} (${rows.length - 1}):`);
  ctx.out.line(table(rows));
}

/** A description on one line, cut to fit a table. */
function oneLine(text: string | undefined): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}
