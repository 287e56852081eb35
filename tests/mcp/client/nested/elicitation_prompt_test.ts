/**
 * @module The terminal elicitation prompt, driven by scripted lines: consent first, each field
 * with its default, retries on bad input, enum choices by number, URL mode shown without being
 * opened, end of input as cancel, and upstream text neutralised before it reaches the terminal.
 */
import assert from "node:assert/strict";
import { terminalElicitation } from "../../../../src/mcp/client/nested/elicitation_prompt.ts";
import { withSchemaDefaults } from "../../../../src/mcp/client/nested/form_defaults.ts";
import type { ElicitRequestFormParams } from "../../../../src/mcp/sdk.ts";
import { FORM_SCHEMA } from "../../../fixtures/upstream/nested.ts";
import { scriptedTerminal } from "../upstream_setup.ts";

const context = { server: "files", signal: new AbortController().signal };
const form = (message = "Tell us about you"): ElicitRequestFormParams => ({
  mode: "form",
  message,
  requestedSchema: FORM_SCHEMA,
});

Deno.test("elicitation prompt: Enter takes each default; answers are typed and checked", async () => {
  const all = scriptedTerminal(["yes", "", "", "", "", ""]);
  assert.deepEqual(await terminalElicitation(all)(form(), context), {
    action: "accept",
    content: { name: "John Doe", age: 30, score: 95.5, status: "active", verified: true },
  });
  assert.match(all.output(), /name — User name \(string, required\) \[John Doe\]: /);
  assert.match(
    all.output(),
    /status — User status \(1=active, 2=inactive, 3=pending\) \[active\]: /,
  );

  const typed = scriptedTerminal([
    "y",
    "Ada",
    "3.5",
    "41",
    "x",
    "",
    "nope",
    "pending",
    "maybe",
    "yes",
  ]);
  assert.deepEqual(await terminalElicitation(typed)(form(), context), {
    action: "accept",
    content: { name: "Ada", age: 41, score: 95.5, status: "pending", verified: true },
  });
  assert.ok(typed.output().includes(":   enter a whole number\n"));
  assert.ok(typed.output().includes(":   pick one of the listed choices (number or value)\n"));
  assert.ok(typed.output().includes(":   answer yes or no\n"));
});

Deno.test("elicitation prompt: decline, cancel, end of input, and three bad answers", async () => {
  assert.deepEqual(await terminalElicitation(scriptedTerminal(["n"]))(form(), context), {
    action: "decline",
  });
  assert.deepEqual(await terminalElicitation(scriptedTerminal(["c"]))(form(), context), {
    action: "cancel",
  });
  assert.deepEqual(await terminalElicitation(scriptedTerminal(["y", "Ada"]))(form(), context), {
    action: "cancel",
  });
  const stubborn = scriptedTerminal(["y", "Ada", "old", "older", "oldest"]);
  assert.deepEqual(await terminalElicitation(stubborn)(form(), context), { action: "cancel" });
  assert.match(stubborn.output(), /no valid answer for age; the form is cancelled/);
});

Deno.test("elicitation prompt: upstream text is neutralised; a URL is shown with its host, never opened", async () => {
  const evil = "\u001b]0;owned\u0007Hi \u001b[31mthere";
  const terminal = scriptedTerminal(["n"]);
  await terminalElicitation(terminal)(form(evil), context);
  assert.ok(!terminal.output().includes("\u001b") && !terminal.output().includes("\u0007"));
  assert.match(terminal.output(), /upstream "files" asks: \\x1b\]0;owned\\x07Hi \\x1b\[31mthere/);

  const url = scriptedTerminal(["y"]);
  const result = await terminalElicitation(url)({
    mode: "url",
    message: "Sign in",
    url: "https://login.example.com/x?y=1",
    elicitationId: "e1",
  }, context);
  assert.deepEqual(result, { action: "accept" });
  assert.match(
    url.output(),
    /asks you to open a web page: Sign in\n {2}https:\/\/login\.example\.com\/x\?y=1\n {2}\(host: login\.example\.com; engram does not open it for you\)/,
  );
  assert.deepEqual(
    await terminalElicitation(scriptedTerminal([]))({
      mode: "url",
      message: "m",
      url: "https://x.example/",
      elicitationId: "e2",
    }, context),
    { action: "cancel" },
  );
});

Deno.test("schema defaults: only missing fields are filled, with the schema's own default", () => {
  assert.deepEqual(withSchemaDefaults(FORM_SCHEMA, { name: "Ada", verified: false }), {
    name: "Ada",
    age: 30,
    score: 95.5,
    status: "active",
    verified: false,
  });
  assert.deepEqual(
    withSchemaDefaults({ type: "object", properties: { n: { type: "string" } } }, undefined),
    {},
  );
});
