/**
 * @module A tool's `tools/list` entry: JSON Schemas generated from its zod schemas — the input exact,
 * the output without its bounds (`listedOutput`) since every definition sits in the agent's context.
 */
import { z } from "zod";
import type { Tool } from "./session/mcp_protocol.ts";
import type { Tier } from "../../core/types.ts";
import { outputSchemas } from "./output_schemas.ts";
import type { ToolDef } from "./tool.ts";

/** Keywords that bound or format a value: they say nothing an agent uses about a result's shape. */
const BOUNDS = new Set([
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "propertyNames",
  "default",
]);

/** A tools/list entry with the tier that may see it. */
export interface ListedTool {
  tier: Tier;
  entry: Tool;
}

/**
 * The tools/list entries of a catalogue, built on the first tools/list and kept: generating JSON
 * Schemas from zod is the costly part of listing (about 20 ms for the memory tools) and they never
 * change, so one instance serves every session of a process and start-up does not wait for it.
 */
export class ToolListing {
  readonly #tools: readonly ToolDef[];
  #entries?: readonly ListedTool[];

  /** A listing of `tools`, in their order; nothing is generated yet. */
  constructor(tools: readonly ToolDef[]) {
    this.#tools = tools;
  }

  /** Every tool's entry, generated on the first call (the output schemas are built for it). */
  entries(): readonly ListedTool[] {
    if (this.#entries) return this.#entries;
    const schemas = outputSchemas();
    return this.#entries = this.#tools.map((t) => ({
      tier: t.tier,
      entry: describeTool(t, schemas),
    }));
  }
}

/** The tools/list entry for a tool, with JSON Schemas generated from its zod schemas. */
export function describeTool(tool: ToolDef, schemas = outputSchemas()): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: closedInput(jsonSchema(tool.input, "input")) as Tool["inputSchema"],
    outputSchema: listedOutput(jsonSchema(tool.output(schemas), "output")) as Tool["outputSchema"],
    annotations: { title: tool.title, ...tool.annotations },
  };
}

/**
 * The exact JSON Schema of a tool's `structuredContent`, bounds and patterns included — what its
 * results are held to in tests; `tools/list` carries the lighter form (see `listedOutput`).
 */
export function strictOutputSchema(tool: ToolDef): Record<string, unknown> {
  return jsonSchema(tool.output(outputSchemas()), "output");
}

/**
 * An output schema without its bounds: every tool definition sits in the agent's context, and the
 * bounds of what engram returns (lengths, id patterns, 2^53) are a third of the listing. Dropping
 * them only widens the schema, so every result still validates against it.
 */
function listedOutput(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(listedOutput);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (BOUNDS.has(key)) continue;
    // `additionalProperties: {}` allows anything, as leaving it out does.
    if (key === "additionalProperties" && isEmptyObject(value)) continue;
    // Property names are data, not keywords: a property called "pattern" stays.
    out[key] = key === "properties"
      ? Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, listedOutput(v)]),
      )
      : listedOutput(value);
  }
  return out;
}

/**
 * An input schema that says what dispatch enforces (unknown_arguments.ts): an object with
 * `properties` and no `additionalProperties` of its own takes no other key. Maps (`metadata`) keep
 * the `additionalProperties` schema zod gave them.
 */
function closedInput(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedInput);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // Property names are data, not keywords: a property called "properties" is walked as one.
    out[key] = key === "properties"
      ? Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, closedInput(v)]),
      )
      : closedInput(value);
  }
  if ("properties" in out && !("additionalProperties" in out)) out.additionalProperties = false;
  return out;
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value) &&
    Object.keys(value).length === 0;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  // draft-7 without $schema: what the SDK client's default validator (ajv) compiles as-is.
  const out = z.toJSONSchema(schema, { io, target: "draft-7", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  delete out.$schema;
  return out;
}
