/**
 * @module The client the official conformance suite drives (`conformance client --command …`):
 * engram's own upstream session layer (UpstreamSession over the Streamable HTTP transport, the
 * nested-request answerers, schema defaults) and, for the `auth/*` scenarios, engram's own OAuth
 * client (UpstreamOAuth over a real SQLite file: the login, the sealed tokens, `needs login`), not
 * a bare SDK client. The harness appends the server URL as the last argument, names the scenario
 * in MCP_CONFORMANCE_SCENARIO, and passes pre-registered credentials in MCP_CONFORMANCE_CONTEXT.
 *
 * The suite's authorization server approves at once, so the driver plays the person's browser:
 * it fetches each authorization URL without following the redirect and follows the Location to
 * engram's loopback callback, as a browser would. A call that fails with `needs login` (a step-up)
 * is answered as an operator would: one more login, then the call again.
 *
 * Run: `deno run -A --config deno.json tests/mcp/client/conformance_driver.ts URL`
 */
import { envFrom } from "../../../src/config/env.ts";
import { HttpServerSchema } from "../../../src/config/mcp_servers.ts";
import { secretKeySource } from "../../../src/config/secret_key.ts";
import { gatherLaunchFacts } from "../../../src/mcp/client/launch/launch_facts.ts";
import { needsLoginOf } from "../../../src/mcp/client/oauth/oauth_errors.ts";
import { UpstreamOAuth } from "../../../src/mcp/client/oauth/upstream_oauth.ts";
import { UpstreamSession } from "../../../src/mcp/client/session/upstream_session.ts";
import { openSqliteStorage } from "../../../src/storage/sqlite/sqlite_storage.ts";

/** The tool each scenario expects to be called, with its arguments. */
const CALLS: Record<string, [string, Record<string, unknown>] | null> = {
  "initialize": null,
  "tools_call": ["add_numbers", { a: 2, b: 3 }],
  "elicitation-sep1034-client-defaults": ["test_client_elicitation_defaults", {}],
  "sse-retry": ["test_reconnection", {}],
};

/** The client-ID metadata document URL `auth/basic-cimd` expects to see as the client_id. */
const CIMD_URL = "https://conformance-test.local/client-metadata.json";

const url = Deno.args.at(-1) ?? "";
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
const context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}") as {
  client_id?: string;
  client_secret?: string;
};
const isAuth = scenario.startsWith("auth/");
if (!isAuth && !(scenario in CALLS)) {
  throw new Error(`unknown scenario ${JSON.stringify(scenario)}`);
}

const dataDir = await Deno.makeTempDir({ prefix: "engram-conformance-driver-" });
// A pre-registered secret is configured as a ${VAR} reference, as an operator writes it.
const env = envFrom(context.client_secret ? { CONFORMANCE_SECRET: context.client_secret } : {});
const facts = await gatherLaunchFacts(
  { review_keys: [], stdio_allowed_commands: [] },
  { env, dataDir, sandbox: { ok: false, reason: "not needed for HTTP", fix: "" } },
);
const server = HttpServerSchema.parse({
  name: "conformance",
  transport: "http",
  url,
  client_consent: "approved",
  ...(isAuth ? { oauth: oauthSettings() } : {}),
});
const storage = openSqliteStorage(`${dataDir}/engram.db`);
const oauth = new UpstreamOAuth({
  store: storage.upstreamCredentials,
  keys: secretKeySource(env, dataDir),
  env,
});
const session = new UpstreamSession(server, {
  facts,
  requestTimeoutMs: 10_000,
  clientInfo: { name: "engram-conformance-driver", version: "0.1.0" },
  oauth,
  host: {
    // Accept every form with nothing filled in: the schema defaults must come from engram.
    elicit: () => Promise.resolve({ action: "accept", content: {} }),
  },
});
try {
  if (isAuth) await authScenario();
  else await plainScenario();
} catch (error) {
  console.error(`driver: ${scenario} failed: ${(error as Error).message}`);
  Deno.exitCode = 1;
} finally {
  await session.close();
  storage.close();
  await Deno.remove(dataDir, { recursive: true });
}

async function plainScenario(): Promise<void> {
  await session.connect();
  const call = CALLS[scenario];
  if (call) {
    const tools = await session.listTools();
    console.error(`driver: tools ${tools.map((t) => t.name).join(", ")}`);
    const result = await session.callTool(call[0], call[1]);
    console.log(JSON.stringify(result));
  }
}

/** Log in, then list and call a tool; a `needs login` answered by one more login. */
async function authScenario(): Promise<void> {
  await login();
  for (let attempt = 0;; attempt++) {
    try {
      const tools = await session.listTools();
      if (tools.length) console.log(JSON.stringify(await session.callTool(tools[0].name, {})));
      return;
    } catch (error) {
      if (!needsLoginOf(error) || attempt > 0) throw error;
      console.error(`driver: ${(error as Error).message}`);
      await login();
    }
  }
}

async function login(): Promise<void> {
  const result = await oauth.login(server, { maxMessageBytes: 1 << 20, requestTimeoutMs: 10_000 }, {
    onAuthorizationUrl: browse,
    waitMs: 10_000,
  });
  console.error(`driver: login ${result.status} after ${result.authorizations} authorization(s)`);
}

/** What a person's browser does with an authorization URL on a server that approves at once. */
async function browse(authorizationUrl: string): Promise<void> {
  const approved = await fetch(authorizationUrl, { redirect: "manual" });
  await approved.body?.cancel();
  const location = approved.headers.get("location");
  if (!location) throw new Error(`the authorization server answered ${approved.status}`);
  const back = await fetch(new URL(location, authorizationUrl));
  await back.body?.cancel();
}

function oauthSettings(): Record<string, unknown> {
  if (context.client_id) {
    return {
      client_id: context.client_id,
      ...(context.client_secret ? { client_secret: "${CONFORMANCE_SECRET}" } : {}),
    };
  }
  return scenario === "auth/basic-cimd" ? { client_id_metadata_document_url: CIMD_URL } : {};
}
