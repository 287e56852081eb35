/**
 * @module Unknown tool arguments are `invalid_argument`, naming the key and the one likely meant —
 * at any depth, maps excepted — and the listed input schemas say so (`additionalProperties: false`).
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { EngramError } from "../../../src/core/errors.ts";
import { meantName } from "../../../src/core/text/edit_distance.ts";
import { refuseUnknownKeys, unknownKeys } from "../../../src/mcp/server/unknown_arguments.ts";
import { callErr, callOk, connectStdio, tempDir } from "../../helpers.ts";

const SCHEMA = z.object({
  query: z.string(),
  top_k: z.number().default(10),
  metadata: z.record(z.string(), z.unknown()).optional(),
  loose: z.looseObject({ a: z.string() }).optional(),
  messages: z.array(z.object({ role: z.string(), content: z.string() })).optional(),
  either: z.union([z.object({ id: z.string() }), z.object({ path: z.string() })]).optional(),
});

Deno.test("unknownKeys: top level and nested keys; maps and loose objects take any key", () => {
  assert.deepEqual(unknownKeys(SCHEMA, { query: "x", top_k: 2 }), []);
  assert.deepEqual(
    unknownKeys(SCHEMA, {
      query: "x",
      topk: 3,
      metadata: { anything: 1 },
      loose: { a: "a", extra: true },
      messages: [{ role: "user", content: "hi" }, { rol: "user", content: "x" }],
      either: { path: "/a.md" },
    }).map((k) => k.path),
    ["topk", "messages.1.rol"],
  );
  assert.deepEqual(
    unknownKeys(SCHEMA, { query: "x", either: { id: "d", pth: "/a" } })[0].path,
    "either.pth",
  );
});

Deno.test("meantName: a near or containing key, never a far one", () => {
  const known = ["query", "brain", "top_k", "scope"];
  assert.equal(meantName("topk", known), "top_k");
  assert.equal(meantName("qurey", known), "query");
  assert.equal(meantName("Brain", known), "brain");
  assert.equal(meantName("frobnicate", known), undefined);
});

Deno.test("refuseUnknownKeys: invalid_argument naming the key, the likely one, and what is taken", () => {
  assert.throws(() => refuseUnknownKeys(SCHEMA, { query: "x", topk: 1 }, "memory_search"), (e) => {
    assert.ok(e instanceof EngramError);
    assert.equal(e.code, "invalid_argument");
    assert.equal(
      e.message,
      'invalid arguments for memory_search: unknown argument "topk" (did you mean "top_k"?); ' +
        "memory_search takes query, top_k, metadata, loose, messages, either",
    );
    return true;
  });
});

Deno.test("over stdio: unknown arguments fail with their names; known ones and map keys pass", async () => {
  await using dir = await tempDir();
  await using engram = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const listed = await engram.client.listTools();
  const search = listed.tools.find((t) => t.name === "memory_search")!;
  assert.equal(search.inputSchema.additionalProperties, false, "the listing says so");

  const bogus = await callErr(engram.client, "memory_search", { query: "x", bogus: 1 });
  assert.equal(bogus.code, "invalid_argument");
  assert.match(bogus.message, /unknown argument "bogus"; memory_search takes query, brain, top_k/);
  const topk = await callErr(engram.client, "memory_search", { query: "x", topk: 3 });
  assert.match(topk.message, /unknown argument "topk" \(did you mean "top_k"\?\)/);
  const pack = await callErr(engram.client, "memory_pack", { query: "x", frobnicate: true });
  assert.match(pack.message, /unknown argument "frobnicate"; memory_pack takes/);
  const extract = await callErr(engram.client, "memory_extract", {
    messages: [{ rol: "user", content: "hi" }],
  });
  assert.match(extract.message, /unknown argument "messages\.0\.rol" \(did you mean "role"\?\)/);

  // Metadata is a map: its keys are the writer's own.
  const doc = await callOk<{ metadata: Record<string, unknown> }>(
    engram.client,
    "memory_remember",
    {
      content: "# Kept\n\nbody",
      metadata: { reviewer: "ana", priority: 2 },
    },
  );
  assert.equal(doc.metadata.reviewer, "ana");
});
