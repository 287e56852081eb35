/**
 * @module Approved upstream tools as tools of engram's own server, in one process: the current
 * exposure plan (from approvals and sightings, never waiting on an upstream), refreshed when the
 * operator changes approvals (a poll of the database) or an upstream says its list changed — then
 * listeners (each MCP session) are told, so clients get `notifications/tools/list_changed`.
 *
 * A call checks, before anything reaches the upstream, that the tool the upstream lists is the one
 * approved (a changed definition is refused and leaves every agent's list). What a server lists is
 * re-read when it says its list changed and, since an upstream may change a tool without saying so
 * (or come back from a restart with another version), at the latest `relistMs` after it was last
 * read; the check then validates the
 * arguments against the approved input schema, and shapes the result so SDK clients accept it: an
 * error result loses its `structuredContent`, and a success whose `structuredContent` does not
 * match the tool's own `outputSchema` becomes an error result saying so.
 */
import { EngramError, toEngramError } from "../../../core/errors.ts";
import type { Logger } from "../../../core/logger.ts";
import type { ApprovalStore } from "../../../core/ports/approval_store.ts";
import { type Tier, tierAllows } from "../../../core/types.ts";
import { CoalescedRuns } from "../session/coalesced_runs.ts";
import { AjvJsonSchemaValidator, type CallToolResult, type Tool } from "../../sdk.ts";
import { TOOL_ERROR_META, type ToolErrorMeta } from "../../server/tool_error.ts";
import { pinListed, serverIdentity } from "../approvals/capability_pins.ts";
import type { ExposedTool, ExposurePlan } from "./exposure_plan.ts";
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

/** How long a listing is trusted by default: a silent change is caught within this. */
const RELIST_MS = 30_000;

/** A compiled check of one schema. */
type SchemaCheck = ReturnType<AjvJsonSchemaValidator["getValidator"]>;

/** A process's exposed upstream tools. */
export class UpstreamExposure {
  readonly #d: ExposureDeps;
  #plan: ExposurePlan;
  /** The plan's tools as tools/list entries, built once per plan. */
  #listing: { tier: Tier; entry: Tool }[] = [];
  readonly #listeners = new Set<() => void>();
  /** Per server: the pins of the tools it listed last, and when they were read. */
  readonly #live = new Map<string, { pins: Map<string, string>; at: number }>();
  readonly #validator = new AjvJsonSchemaValidator();
  /**
   * Compiled schemas by pin and field: a reloaded plan brings new objects of the same
   * definitions, and compiling each again would grow the validator's cache for as long as the
   * process lives. Pins that leave the plan are dropped.
   */
  readonly #checks = new Map<string, SchemaCheck>();
  #timer?: ReturnType<typeof setInterval>;
  #refreshing: Promise<void> | null = null;
  /** Re-listings after list_changed, one per server at a time. */
  readonly #relisting = new CoalescedRuns<string>((server) => this.#relist(server));

  private constructor(deps: ExposureDeps, plan: ExposurePlan) {
    this.#d = deps;
    this.#plan = plan;
    this.#setPlan(plan);
  }

  /** The exposure with its first plan loaded. */
  static async open(deps: ExposureDeps): Promise<UpstreamExposure> {
    return new UpstreamExposure(deps, await deps.loadPlan());
  }

  /** The tools a session at `tier` is offered, as tools/list entries. */
  tools(tier: Tier): Tool[] {
    return this.#listing.filter((t) => tierAllows(tier, t.tier)).map((t) => t.entry);
  }

  /** The exposed tool named `name`, whatever its tier; undefined when none. */
  find(name: string): ExposedTool | undefined {
    return this.#plan.tools.find((t) => t.exposed === name);
  }

  /**
   * Why a tool that is not offered cannot be called by this name (changed, revoked, …), or
   * undefined when no capability would be exposed by it.
   */
  withdrawn(name: string): string | undefined {
    const h = this.#plan.hidden.find((x) => x.exposed === name);
    return h
      ? `${name} is not offered: upstream ${h.server} ${h.kind} ${h.name}: ${h.detail}`
      : undefined;
  }

  /** Calls `listener` when the exposed tools change; returns the function that stops it. */
  onChange(listener: () => void): () => void {
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
        const before = signature(this.#plan);
        this.#setPlan(next);
        if (signature(next) !== before) {
          for (const listener of [...this.#listeners]) listener();
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
   * An upstream said its tools changed: forget what it listed, look again, tell sessions. One
   * look per server at a time: notifications arriving meanwhile make one more look after it, so
   * an upstream flooding list_changed gets one tools/list at a time, not one per notification.
   */
  listChanged(server: string): Promise<void> {
    return this.#relisting.ask(server);
  }

  async #relist(server: string): Promise<void> {
    this.#live.delete(server);
    try {
      const session = await (await this.#d.connections()).session(server);
      await this.#liveTools(session);
    } catch (err) {
      this.#d.logger.warn("could not re-list an upstream's tools", {
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
    this.#validate(tool, "inputSchema", args, "arguments");
    let session: UpstreamSession;
    try {
      session = await (await this.#d.connections()).session(tool.server);
    } catch (err) {
      const e = toEngramError(err);
      throw new EngramError(
        e.code === "forbidden" ? "forbidden" : "provider_unavailable",
        `upstream ${tool.server} is unavailable, so ${tool.exposed} cannot run: ${e.message}`,
        { cause: err },
      );
    }
    const live = (await this.#liveTools(session)).get(tool.tool);
    if (live === undefined) {
      throw new EngramError(
        "forbidden",
        `upstream ${tool.server} no longer lists ${tool.tool}; its approval no longer holds (review with: engram mcp approvals ${tool.server})`,
      );
    }
    if (live !== tool.pin) {
      throw new EngramError(
        "forbidden",
        `upstream ${tool.server} changed tool ${tool.tool} since it was approved, so ${tool.exposed} is withdrawn; the operator can review it with: engram mcp approvals diff ${tool.server} ${tool.tool}`,
      );
    }
    const result = await session.callTool(tool.tool, args, options);
    return this.#shape(tool, result);
  }

  /** Stops polling. */
  close(): void {
    this.#stopPolling();
  }

  /** The pins of what `session`'s server lists (read again once its list changed or grew old). */
  async #liveTools(session: UpstreamSession): Promise<Map<string, string>> {
    const now = this.#d.now ?? Date.now;
    const known = this.#live.get(session.name);
    if (known && now() - known.at < (this.#d.relistMs ?? RELIST_MS)) return known.pins;
    const entry = (await this.#d.catalog()).find((e) => e.config.name === session.name);
    const identity = await serverIdentity(entry?.config ?? session.server);
    const pins = new Map<string, string>();
    const seen = [];
    for (const t of await session.listTools()) {
      const pinned = await pinListed("tool", t, identity);
      pins.set(t.name, pinned.pin);
      seen.push({
        kind: "tool" as const,
        name: pinned.name,
        hash: pinned.pin,
        definition: pinned.definition,
      });
    }
    this.#live.set(session.name, { pins, at: now() });
    // Other processes (and `engram mcp exposure`) learn of a change from the sightings.
    await this.#d.sightings.recordSightings(session.name, seen, new Date().toISOString())
      .catch((err) =>
        this.#d.logger.warn("could not record what an upstream lists", { error: String(err) })
      );
    return pins;
  }

  #shape(tool: ExposedTool, result: CallToolResult): CallToolResult {
    if (result.isError) {
      const { structuredContent: _dropped, ...rest } = result;
      return rest;
    }
    const schema = tool.definition.outputSchema;
    if (schema === undefined) return result;
    if (result.structuredContent === undefined) {
      return upstreamMisbehaved(
        tool,
        "returned no structured content although its outputSchema promises it",
      );
    }
    try {
      this.#validate(tool, "outputSchema", result.structuredContent, "structured content");
    } catch (err) {
      return upstreamMisbehaved(tool, (err as Error).message);
    }
    return result;
  }

  #validate(
    tool: ExposedTool,
    field: "inputSchema" | "outputSchema",
    value: unknown,
    what: string,
  ): void {
    const schema = tool.definition[field];
    if (!schema || typeof schema !== "object") return;
    const key = `${tool.pin}\u0000${field}`;
    let check = this.#checks.get(key);
    if (!check) {
      check = this.#validator.getValidator(schema as Record<string, unknown>);
      this.#checks.set(key, check);
    }
    const out = check(value);
    if (!out.valid) {
      throw new EngramError(
        field === "inputSchema" ? "invalid_argument" : "provider_unavailable",
        `${what} of ${tool.exposed} do${
          what === "arguments" ? "" : "es"
        } not match its ${field}: ${out.errorMessage}`,
      );
    }
  }

  /** Makes `plan` current: its listing built, compiled schemas of pins it dropped forgotten. */
  #setPlan(plan: ExposurePlan): void {
    this.#plan = plan;
    this.#listing = plan.tools.map((t) => ({ tier: t.tier, entry: listing(t) }));
    const pins = new Set(plan.tools.map((t) => t.pin));
    for (const key of this.#checks.keys()) {
      if (!pins.has(key.slice(0, key.indexOf("\u0000")))) this.#checks.delete(key);
    }
  }

  #stopPolling(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** The tools/list entry of an exposed tool: its approved definition under its exposed name. */
function listing(t: ExposedTool): Tool {
  const d = t.definition as Partial<Tool>;
  return {
    ...d,
    name: t.exposed,
    description: `${d.description ?? ""}\n\n(upstream ${t.server} tool ${t.tool}, through engram)`
      .trim(),
    inputSchema: (d.inputSchema ?? { type: "object" }) as Tool["inputSchema"],
  } as Tool;
}

function upstreamMisbehaved(tool: ExposedTool, what: string): CallToolResult {
  const message =
    `upstream ${tool.server} tool ${tool.tool} ${what}; engram does not pass such a result on`;
  const meta: ToolErrorMeta = { code: "provider_unavailable", retryable: false };
  return {
    isError: true,
    content: [{ type: "text", text: `provider_unavailable: ${message}` }],
    _meta: { [TOOL_ERROR_META]: meta },
  };
}

/** What listeners care about: names, tiers and pins of the offered tools. */
function signature(plan: ExposurePlan): string {
  return plan.tools.map((t) => `${t.exposed}\u0000${t.tier}\u0000${t.pin}`).sort().join("\n");
}
