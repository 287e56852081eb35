/**
 * @module Approved upstream tools, prompts and resource templates as those of engram's own server,
 * in one process: the current exposure plan (from approvals and sightings, never waiting on an
 * upstream), refreshed when the operator changes approvals (a poll of the database) or an upstream
 * says a list changed — then listeners (each MCP session) are told which lists changed, so
 * clients get `notifications/{tools,prompts,resources}/list_changed`.
 *
 * A call, prompt or read checks, before anything reaches the upstream, that what the upstream
 * lists now is what was approved (live_listing.ts: a changed definition is refused and leaves
 * every agent's list). A tool's arguments and result are checked against its approved schemas
 * (tool_schemas.ts), and every result says whose it is (exposed_entries.ts)
 * (docs/upstream.md#exposure).
 */
import { EngramError, toEngramError } from "../../../core/errors.ts";
import type { Logger } from "../../../core/logger.ts";
import type { ApprovalStore } from "../../../core/ports/approval_store.ts";
import { type Tier, tierAllows } from "../../../core/types.ts";
import { CoalescedRuns } from "../session/coalesced_runs.ts";
import {
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type ResourceTemplate,
  type Tool,
  UriTemplate,
} from "../../sdk.ts";
import type { OfferedLists } from "../../server/upstream_tools.ts";
import type { CapabilityKind } from "../approvals/capability_pins.ts";
import {
  type ExposedPrompt,
  type ExposedTemplate,
  type ExposedTool,
  type ExposurePlan,
  UPSTREAM_URI_PREFIX,
} from "./exposure_plan.ts";
import { promptEntry, templateEntry, toolEntry, withOrigin } from "./exposed_entries.ts";
import { LiveListings } from "./live_listing.ts";
import { ToolSchemas } from "./tool_schemas.ts";
import type { CatalogEntry } from "../upstream_catalog.ts";
import type { UpstreamConnections } from "../session/upstream_connections.ts";
import type { CallOptions } from "../session/upstream_request.ts";
import type { UpstreamSession } from "../session/upstream_session.ts";

/** What the exposure works with. */
export interface ExposureDeps {
  /** The current plan (approvals, sightings and server entries read afresh). */
  loadPlan(): Promise<ExposurePlan>;
  /** The server entries, to know each one's identity. */
  catalog(): Promise<readonly CatalogEntry[]>;
  /** The connection manager, made on first use (its launch facts cost a probe). */
  connections(): Promise<UpstreamConnections>;
  sightings: Pick<ApprovalStore, "recordSightings">;
  logger: Logger;
  /** How often approvals are re-read for changes made by other processes; 0: never. */
  pollMs: number;
  /** How long what an upstream listed is trusted before a call reads it again (default 30 s). */
  relistMs?: number;
  /** The clock, in milliseconds (tests move it). */
  now?: () => number;
}

/** An exposed template that a URI an agent reads falls under, with the upstream's URI. */
export interface TemplateRead {
  template: ExposedTemplate;
  /** The URI as the upstream knows it. */
  uri: string;
}

/** A process's exposed upstream capabilities. */
export class UpstreamExposure {
  readonly #d: ExposureDeps;
  #plan: ExposurePlan;
  /** The plan as list entries, built once per plan. */
  #listing: {
    tools: { tier: Tier; entry: Tool }[];
    prompts: { tier: Tier; entry: Prompt }[];
    templates: { tier: Tier; entry: ResourceTemplate; match: UriTemplate }[];
  } = { tools: [], prompts: [], templates: [] };
  readonly #listeners = new Set<(changed: OfferedLists) => void>();
  readonly #live: LiveListings;
  readonly #schemas = new ToolSchemas();
  #timer?: ReturnType<typeof setInterval>;
  #refreshing: Promise<void> | null = null;
  /** Re-listings after list_changed, one per server at a time. */
  readonly #relisting = new CoalescedRuns<string>((server) => this.#relist(server));

  private constructor(deps: ExposureDeps, plan: ExposurePlan) {
    this.#d = deps;
    this.#live = new LiveListings(deps);
    this.#plan = plan;
    this.#setPlan(plan);
  }

  /** The exposure with its first plan loaded. */
  static async open(deps: ExposureDeps): Promise<UpstreamExposure> {
    return new UpstreamExposure(deps, await deps.loadPlan());
  }

  /** The tools a session at `tier` is offered, as tools/list entries. */
  tools(tier: Tier): Tool[] {
    return this.#listing.tools.filter((t) => tierAllows(tier, t.tier)).map((t) => t.entry);
  }

  /** The prompts a session at `tier` is offered, as prompts/list entries. */
  prompts(tier: Tier): Prompt[] {
    return this.#listing.prompts.filter((t) => tierAllows(tier, t.tier)).map((t) => t.entry);
  }

  /** The resource templates a session at `tier` is offered, as resources/templates/list entries. */
  templates(tier: Tier): ResourceTemplate[] {
    return this.#listing.templates.filter((t) => tierAllows(tier, t.tier)).map((t) => t.entry);
  }

  /** The exposed tool named `name`, whatever its tier; undefined when none. */
  find(name: string): ExposedTool | undefined {
    return this.#plan.tools.find((t) => t.exposed === name);
  }

  /** The exposed prompt named `name`, whatever its tier; undefined when none. */
  findPrompt(name: string): ExposedPrompt | undefined {
    return this.#plan.prompts.find((p) => p.exposed === name);
  }

  /**
   * The exposed template a URI under `upstream://` falls under, whatever its tier; undefined when
   * the URI is not under one.
   */
  findResource(uri: string): TemplateRead | undefined {
    if (!uri.startsWith(UPSTREAM_URI_PREFIX)) return undefined;
    for (const [i, t] of this.#plan.templates.entries()) {
      const head = `${UPSTREAM_URI_PREFIX}${t.server}/`;
      if (!uri.startsWith(head)) continue;
      const upstream = uri.slice(head.length);
      if (this.#listing.templates[i].match.match(upstream) !== null) {
        return { template: t, uri: upstream };
      }
    }
    return undefined;
  }

  /**
   * Why a tool (or prompt) that is not offered cannot be had by this name (changed, revoked, …),
   * or undefined when no capability would be exposed by it.
   */
  withdrawn(name: string, kind: "tool" | "prompt" = "tool"): string | undefined {
    const h = this.#plan.hidden.find((x) => x.exposed === name && x.kind === kind);
    return h
      ? `${name} is not offered: upstream ${h.server} ${h.kind} ${h.name}: ${h.detail}`
      : undefined;
  }

  /**
   * Calls `listener` with the lists that changed when the exposed capabilities change; returns
   * the function that stops it.
   */
  onChange(listener: (changed: OfferedLists) => void): () => void {
    this.#listeners.add(listener);
    if (this.#timer === undefined && this.#d.pollMs > 0) {
      this.#timer = setInterval(() => void this.refresh(), this.#d.pollMs);
      // Watching must never keep a finished process alive.
      Deno.unrefTimer(this.#timer);
    }
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stopPolling();
    };
  }

  /** Reloads the plan; listeners hear of it when the offered tools changed. */
  refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      try {
        const next = await this.#d.loadPlan();
        // An unchanged plan comes back as the same object.
        if (next === this.#plan) return;
        const before = signatures(this.#plan);
        this.#setPlan(next);
        const after = signatures(next);
        const changed: OfferedLists = {
          tools: after.tools !== before.tools,
          prompts: after.prompts !== before.prompts,
          resources: after.resources !== before.resources,
        };
        if (changed.tools || changed.prompts || changed.resources) {
          for (const listener of [...this.#listeners]) listener(changed);
        }
      } catch (err) {
        this.#d.logger.warn("could not reload the exposed upstream tools", {
          error: String(err),
        });
      } finally {
        this.#refreshing = null;
      }
    })();
    return this.#refreshing;
  }

  /**
   * An upstream said a list changed: forget what it listed, look again, tell sessions. One
   * look per server at a time: notifications arriving meanwhile make one more look after it, so
   * an upstream flooding list_changed gets one tools/list at a time, not one per notification.
   */
  listChanged(server: string): Promise<void> {
    return this.#relisting.ask(server);
  }

  async #relist(server: string): Promise<void> {
    this.#live.forget(server);
    try {
      const session = await (await this.#d.connections()).session(server);
      await this.#live.of(session);
    } catch (err) {
      this.#d.logger.warn("could not re-list an upstream's capabilities", {
        server,
        error: String(err),
      });
    }
    await this.refresh();
  }

  /** Calls an exposed tool for an agent. */
  async call(
    tool: ExposedTool,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    this.#schemas.validate(tool, "inputSchema", args, "arguments");
    const session = await this.#checked(tool, { kind: "tool", name: tool.tool });
    const result = await session.callTool(tool.tool, args, options);
    return withOrigin(this.#schemas.shape(tool, result), tool, { tool: tool.tool });
  }

  /** Gets an exposed prompt for an agent. */
  async getPrompt(
    prompt: ExposedPrompt,
    args: Record<string, string>,
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    const session = await this.#checked(prompt, { kind: "prompt", name: prompt.prompt });
    const result = await session.getPrompt(prompt.prompt, args, options);
    return withOrigin(result, prompt, { prompt: prompt.prompt });
  }

  /** Reads a resource under an exposed template for an agent; its contents keep the agent's URI. */
  async readResource(read: TemplateRead, options: CallOptions = {}): Promise<ReadResourceResult> {
    const { template } = read;
    const session = await this.#checked(template, { kind: "template", name: template.template });
    const result = await session.readResource(read.uri, options);
    const head = `${UPSTREAM_URI_PREFIX}${template.server}/`;
    return withOrigin(
      { ...result, contents: result.contents.map((c) => ({ ...c, uri: head + c.uri })) },
      template,
      { template: template.template },
    );
  }

  /** Stops polling. */
  close(): void {
    this.#stopPolling();
  }

  /**
   * The session of `offered`'s server, once what it lists now shows the approved definition of
   * `what` (else `forbidden`, saying how to review it).
   */
  async #checked(
    offered: { server: string; exposed: string; pin: string },
    what: { kind: CapabilityKind; name: string },
  ): Promise<UpstreamSession> {
    let session: UpstreamSession;
    try {
      session = await (await this.#d.connections()).session(offered.server);
    } catch (err) {
      const e = toEngramError(err);
      throw new EngramError(
        e.code === "forbidden" ? "forbidden" : "provider_unavailable",
        `upstream ${offered.server} is unavailable, so ${offered.exposed} cannot run: ${e.message}`,
        { cause: err },
      );
    }
    const live = (await this.#live.of(session))[what.kind].get(what.name);
    const named = what.kind === "tool" ? what.name : `${what.kind} ${what.name}`;
    const kindFlag = what.kind === "tool" ? "" : ` --kind ${what.kind}`;
    if (live === undefined) {
      throw new EngramError(
        "forbidden",
        `upstream ${offered.server} no longer lists ${named}; its approval no longer holds (review with: engram mcp approvals ${offered.server})`,
      );
    }
    if (live !== offered.pin) {
      throw new EngramError(
        "forbidden",
        `upstream ${offered.server} changed ${what.kind} ${what.name} since it was approved, so ${offered.exposed} is withdrawn; the operator can review it with: engram mcp approvals diff ${offered.server} ${what.name}${kindFlag}`,
      );
    }
    return session;
  }

  /** Makes `plan` current: its listing built, compiled schemas of pins it dropped forgotten. */
  #setPlan(plan: ExposurePlan): void {
    this.#plan = plan;
    this.#listing = {
      tools: plan.tools.map((t) => ({ tier: t.tier, entry: toolEntry(t) })),
      prompts: plan.prompts.map((p) => ({ tier: p.tier, entry: promptEntry(p) })),
      templates: plan.templates.map((t) => ({
        tier: t.tier,
        entry: templateEntry(t),
        match: new UriTemplate(t.uriTemplate),
      })),
    };
    this.#schemas.keep(new Set(plan.tools.map((t) => t.pin)));
  }

  #stopPolling(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** What listeners care about, per list: names, tiers and pins of what is offered. */
function signatures(plan: ExposurePlan): { tools: string; prompts: string; resources: string } {
  const sign = (items: { exposed: string; tier: string; pin: string }[]) =>
    items.map((t) => `${t.exposed}\u0000${t.tier}\u0000${t.pin}`).sort().join("\n");
  return {
    tools: sign(plan.tools),
    prompts: sign(plan.prompts),
    resources: sign(plan.templates),
  };
}
