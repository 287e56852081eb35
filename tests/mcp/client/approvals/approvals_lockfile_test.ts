/** @module mcp-lock.json: stable round trip, errors with file and line, the lockfile as a book. */
import assert from "node:assert/strict";
import type { CapabilityApproval } from "../../../../src/core/ports/approval_store.ts";
import { lockfileBook } from "../../../../src/mcp/client/approvals/approval_book.ts";
import {
  lockfileText,
  parseLockfile,
  readLockfile,
} from "../../../../src/mcp/client/approvals/approvals_lockfile.ts";
import { tempDir } from "../../../helpers.ts";

const PIN = "sha256:" + "a".repeat(64);
const ID = "sha256:" + "b".repeat(64);

function approval(server: string, name: string, extra: Partial<CapabilityApproval> = {}) {
  return {
    server,
    kind: "tool",
    name,
    state: "approved",
    pin: PIN,
    definition: { name, inputSchema: { type: "object", required: [], properties: {} } },
    identity: ID,
    expose_tier: "read",
    approved_by: "alice",
    approved_at: "2026-11-25T10:00:00.000Z",
    revoked_at: null,
    ...extra,
  } as CapabilityApproval;
}

Deno.test("lockfile: sorted and stable, whatever order approvals come in; parses back exactly", () => {
  const a = [approval("zeta", "b"), approval("alpha", "z"), approval("alpha", "a")];
  const text = lockfileText(a);
  assert.equal(text, lockfileText([...a].reverse()));
  assert.ok(text.indexOf('"alpha"') < text.indexOf('"zeta"'));
  assert.ok(text.indexOf('"tool:a"') < text.indexOf('"tool:z"'));
  assert.ok(text.indexOf('"properties"') < text.indexOf('"required"'), "definition keys sorted");
  assert.ok(text.endsWith("}\n"));
  const back = parseLockfile(text, "mcp-lock.json");
  assert.deepEqual(
    back.map((x) => `${x.server}/${x.name}`).sort(),
    ["alpha/a", "alpha/z", "zeta/b"],
  );
  assert.deepEqual(back.find((x) => x.server === "zeta"), approval("zeta", "b"));
});

Deno.test("lockfile: bad JSON and malformed entries are refused with file and line", () => {
  assert.throws(
    () =>
      parseLockfile(
        '{\n  "engram_lock": 1,\n  "servers": {\n    oops\n  }\n}',
        "/repo/mcp-lock.json",
      ),
    /lockfile \/repo\/mcp-lock\.json is not JSON: .* at line 4, column 5/,
  );
  const text = lockfileText([approval("files", "read")]).replace(PIN, "sha256:nope");
  assert.throws(
    () => parseLockfile(text, "/repo/mcp-lock.json"),
    /lockfile \/repo\/mcp-lock\.json:6 key servers\.files\.tool:read\.pin: must be "sha256:" and 64 hex digits/,
  );
  assert.throws(
    () => parseLockfile('{"engram_lock": 2, "servers": {}}', "l.json"),
    /l\.json:1 key engram_lock: must be 1/,
  );
});

Deno.test("a lockfile book: missing file is empty, put writes the file, a missing file to read is not_found", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/mcp-lock.json`;
  await assert.rejects(
    readLockfile(file),
    /does not exist; write it with: engram mcp approvals export/,
  );
  const book = lockfileBook(file);
  assert.deepEqual(await book.list(), []);
  await book.put(approval("files", "read"));
  await book.put(approval("files", "read", { expose_tier: "write" }));
  const listed = await book.list("FILES");
  assert.equal(listed.length, 1);
  assert.equal(listed[0].expose_tier, "write");
  await assert.rejects(book.replaceAll([]), /mcp\.approvals_lock/);
});

Deno.test("lockfile: an operator's exposed name (as) is written only when set, and read back", () => {
  const named = approval("files", "echo", { expose_as: "mcp_my_echo" });
  const text = lockfileText([named, approval("files", "add")]);
  assert.equal(text.match(/"as": "mcp_my_echo"/g)?.length, 1);
  const back = parseLockfile(text, "mcp-lock.json");
  assert.deepEqual(back.find((a) => a.name === "echo"), named);
  assert.equal("expose_as" in back.find((a) => a.name === "add")!, false);
  assert.throws(
    () => parseLockfile(text.replace("mcp_my_echo", "my echo"), "/repo/mcp-lock.json"),
    /lockfile \/repo\/mcp-lock\.json:\d+ key servers\.files\.tool:echo\.as: must start with mcp_/,
  );
});
