/**
 * @module The answer to an upstream's elicitation form is still held to the form's schema by
 * engram's server: its JSON Schema validator is made on the first form, not with every session.
 */
import assert from "node:assert/strict";
import { ElicitRequestSchema } from "../../../src/mcp/sdk.ts";
import { upstreamSetup } from "../../cli/_signed_upstreams.ts";
import { connectStdio, resultText } from "../../helpers.ts";

Deno.test("exposure: an agent's answer that does not fit the upstream's form is refused, and one that fits goes through", async () => {
  await using s = await upstreamSetup([{ name: "asker", fixture: "nested" }]);
  await s.approve("asker", { ask_form: "read" });
  const answers = [{ name: 42 }, { name: "Ada", age: 36 }];
  await using agent = await connectStdio(s.dir, {
    capabilities: { elicitation: { form: {} } },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, () => ({
        action: "accept",
        content: answers.shift()!,
      })),
  });
  const refused = await agent.client.callTool({ name: "mcp_asker_ask_form", arguments: {} });
  assert.equal(refused.isError, true, resultText(refused));
  assert.match(resultText(refused), /does not match requested schema/);
  const answered = JSON.parse(
    resultText(await agent.client.callTool({ name: "mcp_asker_ask_form", arguments: {} })),
  );
  assert.deepEqual([answered.action, answered.content.name], ["accept", "Ada"]);
});
