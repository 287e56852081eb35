/**
 * @module The approved schemas of exposed upstream tools at work: arguments checked against the
 * input schema before a call, and a result shaped so SDK clients accept it — an error result loses
 * its `structuredContent`, and a success whose `structuredContent` does not match the tool's own
 * `outputSchema` becomes an error result saying so (docs/upstream.md#exposure).
 */
import { EngramError } from "../../../core/errors.ts";
import { AjvJsonSchemaValidator, type CallToolResult } from "../../sdk.ts";
import { TOOL_ERROR_META, type ToolErrorMeta } from "../../server/tool_error.ts";
import type { ExposedTool } from "./exposure_plan.ts";

/** A compiled check of one schema. */
type SchemaCheck = ReturnType<AjvJsonSchemaValidator["getValidator"]>;

/** The compiled schemas of the exposed tools. */
export class ToolSchemas {
  readonly #validator = new AjvJsonSchemaValidator();
  /**
   * Compiled schemas by pin and field: a reloaded plan brings new objects of the same
   * definitions, and compiling each again would grow the validator's cache for as long as the
   * process lives. Pins that leave the plan are dropped (`keep`).
   */
  readonly #checks = new Map<string, SchemaCheck>();

  /**
   * `result` as agents may get it: an error result without its `structuredContent`; a success
   * whose `structuredContent` breaks the tool's `outputSchema` as an error result saying so.
   */
  shape(tool: ExposedTool, result: CallToolResult): CallToolResult {
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
      this.validate(tool, "outputSchema", result.structuredContent, "structured content");
    } catch (err) {
      return upstreamMisbehaved(tool, (err as Error).message);
    }
    return result;
  }

  /** Checks `value` against the tool's approved `field` schema; a mismatch is an EngramError. */
  validate(
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

  /** Forgets the compiled schemas of every pin not in `pins`. */
  keep(pins: ReadonlySet<string>): void {
    for (const key of this.#checks.keys()) {
      if (!pins.has(key.slice(0, key.indexOf("\u0000")))) this.#checks.delete(key);
    }
  }
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
