/**
 * @module The client the official conformance suite drives (`conformance client --command …`):
 * engram's own upstream session layer (UpstreamSession over the Streamable HTTP transport, the
 * nested-request answerers, schema defaults), not a bare SDK client. The harness appends the
 * server URL as the last argument and names the scenario in MCP_CONFORMANCE_SCENARIO.
 *
 * Run: `deno run -A --config deno.json tests/mcp/client/conformance_driver.ts URL`
 */
import { envFrom } from "../../../src/config/env.ts";
import { HttpServerSchema } from "../../../src/config/mcp_servers.ts";
import { gatherLaunchFacts } from "../../../src/mcp/client/launch/launch_facts.ts";
import { UpstreamSession } from "../../../src/mcp/client/session/upstream_session.ts";

/** The tool each scenario expects to be called, with its arguments. */
const CALLS: Record<string, [string, Record<string, unknown>] | null> = {
  "initialize": null,
  "tools_call": ["add_numbers", { a: 2, b: 3 }],
  "elicitation-sep1034-client-defaults": ["test_client_elicitation_defaults", {}],
  "sse-retry": ["test_reconnection", {}],
};

const url = Deno.args.at(-1) ?? "";
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
if (!(scenario in CALLS)) throw new Error(`unknown scenario ${JSON.stringify(scenario)}`);

const dataDir = await Deno.makeTempDir({ prefix: "engram-conformance-driver-" });
const facts = await gatherLaunchFacts(
  { review_keys: [], stdio_allowed_commands: [] },
  {
    env: envFrom({}),
    dataDir,
    sandbox: { ok: false, reason: "not needed for HTTP", fix: "" },
  },
);
const server = HttpServerSchema.parse({
  name: "conformance",
  transport: "http",
  url,
  client_consent: "approved",
});
const session = new UpstreamSession(server, {
  facts,
  requestTimeoutMs: 10_000,
  clientInfo: { name: "engram-conformance-driver", version: "0.1.0" },
  host: {
    // Accept every form with nothing filled in: the schema defaults must come from engram.
    elicit: () => Promise.resolve({ action: "accept", content: {} }),
  },
});
try {
  await session.connect();
  const call = CALLS[scenario];
  if (call) {
    const tools = await session.listTools();
    console.error(`driver: tools ${tools.map((t) => t.name).join(", ")}`);
    const result = await session.callTool(call[0], call[1]);
    console.log(JSON.stringify(result));
  }
} catch (error) {
  console.error(`driver: ${scenario} failed: ${(error as Error).message}`);
  Deno.exitCode = 1;
} finally {
  await session.close();
  await Deno.remove(dataDir, { recursive: true });
}
