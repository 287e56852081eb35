/**
 * @module `defineTool` ties a handler's result type to the tool's output schema: each
 * `@ts-expect-error` below is a mismatch `deno task check` must reject. If the tie loosens, the
 * directive is unused and the check fails on it.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import type { SearchResult } from "../../../src/core/service_types.ts";
import type { DocumentRecord } from "../../../src/core/types.ts";
import { defineTool, READ_ONLY } from "../../../src/mcp/server/tool.ts";

const base = {
  name: "t",
  title: "t",
  tier: "read" as const,
  description: "t",
  input: z.object({}),
  annotations: READ_ONLY,
  summary: () => "",
};

/** A handler that resolves to a value of type T (never called). */
function returns<T>(): () => Promise<T> {
  return () => Promise.reject(new Error("type-level only"));
}

Deno.test("defineTool: handler results that fit the output schema type-check; others do not", () => {
  const fitting = [
    defineTool({ ...base, output: (o) => o.DocumentRecordSchema, run: returns<DocumentRecord>() }),
    defineTool({ ...base, output: (o) => o.SearchOutputSchema, run: returns<SearchResult>() }),
    // Extra keys are allowed: records are loose, and clients must preserve unknown keys.
    defineTool({
      ...base,
      output: () => z.looseObject({ a: z.string() }),
      run: returns<{ a: string; extra: number }>(),
    }),
  ];
  const mismatched = [
    defineTool({
      ...base,
      output: (o) => o.DocumentRecordSchema,
      // @ts-expect-error a required key (path) is missing
      run: returns<Omit<DocumentRecord, "path">>(),
    }),
    defineTool({
      ...base,
      output: (o) => o.SearchOutputSchema,
      // @ts-expect-error a wrong type inside an array of nested records: hits[].score is a number
      run: returns<Omit<SearchResult, "hits"> & { hits: { score: string }[] }>(),
    }),
    defineTool({
      ...base,
      output: () => z.looseObject({ a: z.enum(["x", "y"]) }),
      // @ts-expect-error any string is not one of the enum's values
      run: returns<{ a: string }>(),
    }),
    defineTool({
      ...base,
      output: () => z.looseObject({ a: z.string().nullable() }),
      // @ts-expect-error nullable is not optional: the key must be present
      run: returns<{ a?: string }>(),
    }),
  ];
  assert.equal(fitting.length + mismatched.length, 7);
});
