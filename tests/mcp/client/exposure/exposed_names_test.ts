/** @module Exposed tool names: mcp_<server>_<tool> within the client rule, collisions reported. */
import assert from "node:assert/strict";
import { EngramError } from "../../../../src/core/errors.ts";
import {
  checkExposedAs,
  exposedName,
  nameExposedTools,
  TOOL_NAME,
} from "../../../../src/mcp/client/exposure/exposed_names.ts";

Deno.test("exposed names fit ^[a-zA-Z0-9_-]{1,64}$ and stay apart when characters change or names are cut", async () => {
  assert.equal(await exposedName("files", "read_file"), "mcp_files_read_file");
  const dotted = await exposedName("files", "read.file");
  const underscored = await exposedName("files", "read_file");
  assert.match(dotted, TOOL_NAME);
  assert.notEqual(dotted, underscored);
  assert.match(dotted, /^mcp_files_read_file_[0-9a-f]{6}$/);
  const long1 = await exposedName("files", "x".repeat(80) + "1");
  const long2 = await exposedName("files", "x".repeat(80) + "2");
  assert.equal(long1.length, 64);
  assert.match(long1, TOOL_NAME);
  assert.notEqual(long1, long2);
  assert.match(await exposedName("srv", "ünïcode tool/名前"), TOOL_NAME);
});

Deno.test("collisions: the first by server and tool keeps the name, the other is reported, never overwritten", async () => {
  const { named, collisions } = await nameExposedTools(
    [
      { server: "b", tool: "x" },
      { server: "a_b", tool: "x" },
      { server: "a", tool: "b_x" },
    ],
    new Set(),
  );
  // mcp_a_b_x is wanted by (a, b_x) and (a_b, x): "a" sorts first and keeps it.
  assert.deepEqual(named.map((n) => [n.exposed, n.item.server]), [
    ["mcp_a_b_x", "a"],
    ["mcp_b_x", "b"],
  ]);
  assert.deepEqual(collisions.map((c) => [c.exposed, c.item.server, c.taken_by.server]), [
    ["mcp_a_b_x", "a_b", "a"],
  ]);
  const reserved = await nameExposedTools([{ server: "s", tool: "t" }], new Set(["mcp_s_t"]));
  assert.equal(reserved.named.length, 0);
  assert.equal(reserved.collisions.length, 1);
});

Deno.test("--as: an operator's name settles a collision; the name must start mcp_ and fit the rule", async () => {
  const { named, collisions } = await nameExposedTools([
    { server: "a_b", tool: "x", as: "mcp_ab_x" },
    { server: "a", tool: "b_x" },
  ]);
  assert.deepEqual(named.map((n) => [n.exposed, n.item.server]), [
    ["mcp_a_b_x", "a"],
    ["mcp_ab_x", "a_b"],
  ]);
  assert.deepEqual(collisions, []);
  assert.equal(checkExposedAs("mcp_ab_x"), "mcp_ab_x");
  for (const bad of ["ab_x", "mcp_", "mcp_a b", `mcp_${"x".repeat(61)}`, "memory_search"]) {
    assert.throws(() => checkExposedAs(bad), (err: unknown) => {
      assert.ok(err instanceof EngramError);
      assert.equal(err.code, "invalid_argument");
      assert.match(err.message, /must start with mcp_ and be at most 64 of A-Z a-z 0-9 _ -/);
      return true;
    });
  }
  assert.equal(checkExposedAs(`mcp_${"x".repeat(60)}`).length, 64);
});
