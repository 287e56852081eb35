import assert from "node:assert/strict";
import { PINNED_DENO, VERSION } from "../src/version.ts";
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
