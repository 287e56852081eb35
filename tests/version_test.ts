import assert from "node:assert/strict";
import { LATEST_PROTOCOL_VERSION } from "../src/mcp/sdk.ts";
import { PINNED_DENO, PROTOCOL_VERSION, VERSION } from "../src/version.ts";
import { readSources } from "./architecture/import_graph.ts";
import { runEngram, tempDir } from "./helpers.ts";

Deno.test("the suite runs on the Deno version pinned in deno.json", () => {
  assert.equal(
    Deno.version.deno,
    PINNED_DENO,
    `run the tests with the pinned Deno: npx -y deno@${PINNED_DENO} task test`,
  );
});

Deno.test("engram version prints the version from deno.json", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["version", "--json"], { dataDir: dir.path });
  assert.equal(r.code, 0);
  assert.equal(JSON.parse(r.stdout).engram, VERSION);
});

Deno.test("the protocol revision is written once, and is the pinned SDK's latest", () => {
  // An SDK upgrade that moves the latest revision must move engram's pin with it, deliberately.
  assert.equal(PROTOCOL_VERSION, LATEST_PROTOCOL_VERSION);
  const copies: string[] = [];
  for (const [path, text] of readSources()) {
    if (path === "src/version.ts") continue;
    text.split("\n").forEach((line, i) => {
      // A comment may name the revision; code uses PROTOCOL_VERSION. The SSE priming cut-off is
      // the same date but another concept (the first revision whose clients expect it).
      const code = line.replace(/\/\/.*$/, "").replace(/^\s*\/?\*.*$/, "");
      if (code.includes(PROTOCOL_VERSION) && !code.includes("PRIMING_SINCE")) {
        copies.push(`${path}:${i + 1}`);
      }
    });
  }
  assert.deepEqual(copies, [], "use PROTOCOL_VERSION from src/version.ts");
});
