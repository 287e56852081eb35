/** @module The closed-schema check itself: it must reject an unlisted key and keep maps open. */
import assert from "node:assert/strict";
import { AjvJsonSchemaValidator } from "../../../src/mcp/sdk.ts";
import { closedSchema, freeKeyObjects, unlistedKeys } from "./closed_schema.ts";

Deno.test("closed schema: a key the listing does not name fails; a map's free keys pass", () => {
  const listed = {
    type: "object",
    properties: {
      hits: {
        type: "array",
        items: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
      metadata: { type: "object", additionalProperties: { type: "string" } },
      result: { anyOf: [{ type: "object" }, { type: "null" }] },
    },
    required: ["hits"],
  };
  assert.deepEqual(freeKeyObjects(listed), ["/metadata", "/result"]);
  const ajv = new AjvJsonSchemaValidator();
  const strict = ajv.getValidator(closedSchema(listed) as Record<string, unknown>);
  const ok = { hits: [{ path: "/a.md" }], metadata: { any: "key" }, result: { free: 1 } };
  assert.ok(strict(ok).valid, "free keys in maps pass");
  // The listed (open) schema takes an extra key: only the closed copy catches it.
  assert.ok(ajv.getValidator(listed)({ ...ok, extra: 1 }).valid);
  for (
    const [what, bad] of [
      ["at the top", { ...ok, extra: 1 }],
      ["in an array's items", { ...ok, hits: [{ path: "/a.md", heading_path: [] }] }],
    ] as const
  ) {
    const r = strict(bad);
    assert.ok(!r.valid, `an unlisted key ${what} fails`);
    assert.match(r.errorMessage ?? "", /additional properties/i);
  }
  assert.deepEqual(
    unlistedKeys(closedSchema(listed), { ...ok, extra: 1, hits: [{ path: "/a.md", x: 2 }] }),
    ["/hits/0/x", "/extra"],
  );
});
