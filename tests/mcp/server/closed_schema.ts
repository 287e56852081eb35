/**
 * @module Closed copies of listed output schemas, for tool_results_test.ts: a listing promises the
 * keys it names, so a result key it does not name is drift between a record and its schema.
 */

/**
 * The objects results carry whose keys are data, not fields: listed with no `properties`, so a
 * closed listing leaves them open. By property name, and why; every such object a listing holds
 * must be named here, so a new one is a decision rather than a gap.
 */
export const FREE_KEY_MAPS: Record<string, string> = {
  metadata: "a document's metadata: keys the writer chose (tags, front matter, source)",
  component_scores: "one score per ranking signal, and which signals ran depends on the config",
  result: "memory_job: a finished job's own record, shaped by its kind (ingest, extraction)",
};

/**
 * A copy of a listed output schema in which every object schema with `properties` and no
 * `additionalProperties` of its own is closed (`additionalProperties: false`): what the listing
 * promises, and nothing beside it. Maps (no `properties`) stay as they are.
 */
export function closedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closedSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // Property names are data, not keywords: a property called "items" is walked like any other.
    out[key] = key === "properties"
      ? Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, closedSchema(v)]),
      )
      : closedSchema(value);
  }
  if ("properties" in out && !("additionalProperties" in out)) out.additionalProperties = false;
  return out;
}

/** The data paths (`[]` for an array's items) of the objects a schema lists no properties for. */
export function freeKeyObjects(schema: unknown, path = ""): string[] {
  if (schema === null || typeof schema !== "object") return [];
  const s = schema as Record<string, unknown>;
  const types = [s.type].flat();
  const here = types.includes("object") && !s.properties ? [path] : [];
  return [
    ...here,
    ...Object.entries((s.properties ?? {}) as Record<string, unknown>).flatMap(([k, v]) =>
      freeKeyObjects(v, `${path}/${k}`)
    ),
    ...freeKeyObjects(s.items, `${path}/[]`),
    ...((s.anyOf ?? []) as unknown[]).flatMap((v) => freeKeyObjects(v, path)),
  ];
}

/** Where `value` holds a key a closed schema does not name, for a failure message ajv words vaguely. */
export function unlistedKeys(schema: unknown, value: unknown, path = ""): string[] {
  const s = schema as {
    properties?: Record<string, unknown>;
    additionalProperties?: unknown;
    items?: unknown;
  };
  if (Array.isArray(value)) {
    return s.items ? value.flatMap((v, i) => unlistedKeys(s.items, v, `${path}/${i}`)) : [];
  }
  if (value === null || typeof value !== "object" || !s.properties) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k in s.properties!
      ? unlistedKeys(s.properties![k], v, `${path}/${k}`)
      : s.additionalProperties === false
      ? [`${path}/${k}`]
      : []
  );
}
