/**
 * @module `engram mcp get-prompt` against a real fixture upstream: an approved prompt's messages
 * printed (`--json` exact), and the error paths a user hits — not approved, an unknown prompt with
 * the nearest names, arguments that are not a JSON object of strings, an upstream that refuses.
 */
import assert from "node:assert/strict";
import { upstreamSetup } from "../_signed_upstreams.ts";

const WELL = { name: "files", fixture: "well_behaved" };

Deno.test("get-prompt: an approved prompt's messages; --json is exact; --unapproved for one under review", async () => {
  await using s = await upstreamSetup([WELL]);
  await s.approve("files", { greet: null }, { kind: "prompt" });
  const shown = await s.run(["get-prompt", "files", "greet", "--args", '{"name":"Ada"}']);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.stdout, "# Asks for a greeting to NAME.\n[user]\nSay hello to Ada.\n");
  const json = await s.run(["get-prompt", "files", "greet", "--args", '{"name":"Ada"}', "--json"]);
  assert.deepEqual(JSON.parse(json.stdout).messages, [
    { role: "user", content: { type: "text", text: "Say hello to Ada." } },
  ]);
  const unapproved = await s.run(["get-prompt", "files", "summarize", "--args", '{"text":"t"}']);
  assert.equal(unapproved.code, 1);
  assert.match(
    unapproved.stderr,
    /forbidden: upstream files prompt summarize is not approved; review it with: engram mcp approvals diff files summarize --kind prompt, approve it with: engram mcp approvals approve files summarize --kind prompt, or get it once with --unapproved/,
  );
  const reviewing = await s.run([
    "get-prompt",
    "files",
    "summarize",
    "--unapproved",
    "--args",
    '{"text":"t","style":"brief"}',
  ]);
  assert.equal(reviewing.code, 0, reviewing.stderr);
  assert.match(reviewing.stdout, /Summarise \(brief\): t/);
});

Deno.test("get-prompt errors: unknown prompt with nearest names, arguments not strings, not JSON, refused upstream", async () => {
  await using s = await upstreamSetup([WELL]);
  const typo = await s.run(["get-prompt", "files", "gret", "--unapproved"]);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, /not_found: upstream files has no prompt "gret"; nearest: greet/);
  const number = await s.run(["get-prompt", "files", "greet", "--args", '{"name": 3}']);
  assert.equal(number.code, 2);
  assert.match(
    number.stderr,
    /--args: argument name must be a string \(prompt arguments are strings\)/,
  );
  const notJson = await s.run(["get-prompt", "files", "greet", "--args", "{name}"]);
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, /--args is not JSON/);
  // The upstream itself refuses a prompt without its required argument.
  const missing = await s.run(["get-prompt", "files", "greet", "--unapproved"]);
  assert.equal(missing.code, 2, "the upstream says the arguments are wrong: invalid_argument");
  assert.match(missing.stderr, /Prompt greet needs argument name/);
});
