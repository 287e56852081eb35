/**
 * @module The tools/list entries: output schemas listed without their bounds (lighter in the agent's
 * context, never stricter than the exact schema), property names kept even when they spell a
 * keyword, and input schemas exact.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { describeTool, strictOutputSchema } from "../../../src/mcp/server/tool_listing.ts";
import { defineTool, READ_ONLY } from "../../../src/mcp/server/tool.ts";
import { MEMORY_TOOLS } from "../../../src/mcp/server/tools/index.ts";

const BOUND_KEYS =
  /"(minLength|maxLength|pattern|format|minimum|maximum|minItems|maxItems|propertyNames|default)":/;

Deno.test("listed output schemas carry no bounds; the exact ones do; inputs keep theirs", () => {
  const get = MEMORY_TOOLS.find((t) => t.name === "memory_get")!;
  assert.match(JSON.stringify(strictOutputSchema(get)), /"pattern":"\^\[0-9a-f\]\{64\}\$"/);
  for (const tool of MEMORY_TOOLS) {
    const listed = describeTool(tool);
    assert.doesNotMatch(JSON.stringify(listed.outputSchema), BOUND_KEYS, tool.name);
  }
  assert.match(JSON.stringify(describeTool(get).inputSchema), /"maxLength":128/);
});

Deno.test("a property named like a keyword stays in the listed output schema", () => {
  const tool = defineTool({
    name: "probe",
    title: "Probe",
    tier: "read",
    description: "probe",
    input: z.object({}),
    output: () =>
      z.object({
        pattern: z.string().min(1),
        default: z.number().max(3),
        items: z.array(z.string().max(5)).max(2),
      }),
    annotations: READ_ONLY,
    run: () => Promise.resolve({ pattern: "x", default: 1, items: [] as string[] }),
    summary: () => "probe",
  });
  const listed = describeTool(tool).outputSchema as {
    properties: Record<string, Record<string, unknown>>;
    required: string[];
  };
  assert.deepEqual(Object.keys(listed.properties), ["pattern", "default", "items"]);
  assert.deepEqual(listed.properties.pattern, { type: "string" });
  assert.deepEqual(listed.properties.items, { type: "array", items: { type: "string" } });
  assert.deepEqual(listed.required, ["pattern", "default", "items"]);
});
