/**
 * @module A -32042 ("URL elicitation required") through an exposed upstream tool, called by an
 * agent whose client cannot show a URL: it declared form-only elicitation, or none. The agent gets
 * a `forbidden` tool error naming the missing capability — not `internal`, not a stack trace.
 */
import assert from "node:assert/strict";
import { ElicitRequestSchema } from "../../../../src/mcp/sdk.ts";
import { upstreamSetup } from "../../../cli/_signed_upstreams.ts";
import { callErr, connectStdio } from "../../../helpers.ts";

Deno.test("exposure: -32042 to an agent whose client cannot show a URL is forbidden, naming the capability", async () => {
  await using s = await upstreamSetup([{ name: "asker", fixture: "nested" }]);
  await s.approve("asker", { needs_url: "read" });
  const cases = [
    { capabilities: { elicitation: { form: {} } }, why: /did not declare elicitation\.url/ },
    { capabilities: {}, why: /declared no elicitation capability/ },
  ];
  for (const { capabilities, why } of cases) {
    await using agent = await connectStdio(s.dir, {
      capabilities,
      setup: (client) =>
        capabilities.elicitation &&
        client.setRequestHandler(ElicitRequestSchema, () => ({ action: "decline" })),
    });
    const error = await callErr(agent.client, "mcp_asker_needs_url");
    assert.equal(error.code, "forbidden", error.text);
    assert.match(
      error.message,
      /^upstream "asker" needs the user to finish a step in a browser before tools\/call "needs_url" \(https?:\/\/\S+\), and the client connected to engram cannot show it: /,
    );
    assert.match(error.message, why);
    assert.match(error.message, /capabilities\.elicitation\.url/);
    assert.doesNotMatch(error.text, /\n\s+at /, "no stack trace");
  }
});
