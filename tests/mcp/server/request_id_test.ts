/** @module Which JSON-RPC number ids engram echoes, judged on their source text. */
import assert from "node:assert/strict";
import { isRepresentableId, unrepresentableId } from "../../../src/mcp/request_id.ts";

Deno.test("isRepresentableId: integers within ±(2^53 − 1) however written; nothing else", () => {
  for (const ok of ["0", "-0", "7", "100.0", "1e2", "1E+2", "12.50e1", "0.0e-999"]) {
    assert.equal(isRepresentableId(ok), true, ok);
  }
  for (const edge of ["9007199254740991", "-9007199254740991"]) {
    assert.equal(isRepresentableId(edge), true, edge);
  }
  const refused = [
    "9007199254740992",
    "9007199254740993",
    "-9007199254740993",
    "1e21",
    "1e308",
    "1e400",
    "1.5",
    "123e-1",
    "1e-400",
    // Rounds to the safe integer 4503599627370496 when parsed: the text says otherwise.
    "4503599627370495.5",
    "1" + "0".repeat(400),
  ];
  for (const bad of refused) assert.equal(isRepresentableId(bad), false, bad);
});

Deno.test("unrepresentableId: reads the top-level id's own text, not a nested or quoted one", () => {
  const check = (text: string) => unrepresentableId(JSON.parse(text), text);
  assert.equal(
    check('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}'),
    "9007199254740993",
  );
  assert.equal(check('{"id" : 1e21 }'), "1e21");
  assert.equal(check('{"\\u0069d":4503599627370495.5}'), "4503599627370495.5");
  // JSON.parse keeps the last of duplicate keys; so does the check.
  assert.equal(check('{"id":1,"id":1.5}'), "1.5");
  assert.equal(check('{"id":1.5,"id":1}'), undefined);
  const nested = '{"params":{"id":1.5,"s":"\\"id\\":1e21, \\\\"},"id":5,"x":[{"id":2.5}]}';
  assert.equal(check(nested), undefined);
  assert.equal(check('{"params":{"id":1.5},"id":"9007199254740993"}'), undefined);
  assert.equal(check('{"method":"notifications/initialized"}'), undefined);
  assert.equal(check("[1e21]"), undefined, "batches are refused as a whole elsewhere");
});
