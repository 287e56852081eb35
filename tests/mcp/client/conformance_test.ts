/**
 * @module The official MCP conformance suite's client scenarios against engram's upstream client
 * (conformance_driver.ts): initialize, tools_call, elicitation defaults (SEP-1034), SSE retry, and
 * every `auth/*` scenario — those of 2025-11-25 and 2025-06-18, the two 2025-03-26 back-compat
 * ones, and the draft and extension ones. Each scenario must pass with its SUCCESS checks present
 * and no FAILURE or WARNING, unless it is listed in EXPECTED_FAILURES — and a listed scenario that
 * passes fails the test too, so the list stays exact. The scenarios run four at a time; skipped,
 * with the reason, only when the suite's npm package cannot be fetched.
 */
import assert from "node:assert/strict";
import { tempDir } from "../../helpers.ts";
import { runSuite, suiteUnavailable } from "../../conformance_suite.ts";

const DRIVER = new URL("./conformance_driver.ts", import.meta.url).pathname;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

/** The checks every authorization-code login reports. */
const LOGIN = ["authorization-server-metadata", "authorization-request", "token-request"];
/** The resource indicator (RFC 8707) on both requests, the same on both. */
const RESOURCE = [
  "resource-parameter-in-authorization",
  "resource-parameter-in-token",
  "resource-parameter-consistency",
];

/** Each scenario and the check ids it must report as SUCCESS. */
const SCENARIOS: Record<string, string[]> = {
  "initialize": ["mcp-client-initialization"],
  "tools_call": ["tool-add-numbers"],
  "elicitation-sep1034-client-defaults": [
    "client-elicitation-sep1034-string-default",
    "client-elicitation-sep1034-integer-default",
    "client-elicitation-sep1034-number-default",
    "client-elicitation-sep1034-enum-default",
    "client-elicitation-sep1034-boolean-default",
  ],
  "sse-retry": [
    "client-sse-graceful-reconnect",
    "client-sse-retry-timing",
    "client-sse-last-event-id",
  ],
  // 2025-11-25 (and, for token-endpoint-auth-*, 2025-06-18).
  "auth/metadata-default": ["prm-pathbased-requested", "client-registration", ...LOGIN],
  "auth/metadata-var1": ["prm-pathbased-requested", "client-registration", ...LOGIN],
  "auth/metadata-var2": ["client-registration", ...LOGIN],
  "auth/metadata-var3": ["client-registration", ...LOGIN],
  "auth/basic-cimd": ["cimd-client-id-used", ...LOGIN],
  "auth/scope-from-www-authenticate": ["scope-from-www-authenticate"],
  "auth/scope-from-scopes-supported": ["scope-from-scopes-supported"],
  "auth/scope-omitted-when-undefined": ["scope-omitted-when-undefined"],
  "auth/scope-step-up": ["scope-step-up-initial", "scope-step-up-escalation"],
  "auth/scope-retry-limit": ["scope-retry-limit"],
  "auth/token-endpoint-auth-basic": ["token-endpoint-auth-method", ...RESOURCE],
  "auth/token-endpoint-auth-post": ["token-endpoint-auth-method", ...RESOURCE],
  "auth/token-endpoint-auth-none": ["token-endpoint-auth-method", ...RESOURCE],
  "auth/pre-registration": ["pre-registration-auth"],
  // 2025-03-26 back-compat: no protected-resource metadata.
  "auth/2025-03-26-oauth-metadata-backcompat": ["client-registration", ...LOGIN],
  "auth/2025-03-26-oauth-endpoint-fallback": [
    "client-registration",
    "authorization-request",
    "token-request",
  ],
  // Draft.
  "auth/resource-mismatch": ["resource-mismatch-rejected"],
  "auth/offline-access-scope": [
    "sep-2207-client-metadata-grant-types",
    "sep-2207-offline-access-requested",
  ],
  "auth/offline-access-not-supported": ["sep-2207-offline-access-not-requested"],
  // Extensions.
  "auth/client-credentials-jwt": ["client-credentials-jwt-verified"],
  "auth/client-credentials-basic": ["client-credentials-basic-auth"],
  "auth/cross-app-access-complete-flow": ["valid-bearer-token"],
};

/** Scenarios known to fail, and why: extensions engram does not implement. */
const EXPECTED_FAILURES: Record<string, string> = {
  "auth/client-credentials-jwt":
    "extension (SEP-1046): the client_credentials grant with private_key_jwt is for unattended clients; engram logs a person in (authorization code)",
  "auth/client-credentials-basic":
    "extension (SEP-1046): the client_credentials grant is for unattended clients; engram logs a person in (authorization code)",
  "auth/cross-app-access-complete-flow":
    "extension (SEP-990, enterprise-managed authorization): token exchange and the JWT-bearer grant are not implemented",
};

/** How many scenarios run at once. */
const CONCURRENCY = 4;

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  description?: string;
}

/** The checks of the one scenario run written under `dir` (`auth/x` runs write under `dir/auth`). */
async function checksIn(dir: string): Promise<Check[]> {
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isDirectory) continue;
    const inner = `${dir}/${entry.name}`;
    try {
      return JSON.parse(await Deno.readTextFile(`${inner}/checks.json`));
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      return await checksIn(inner);
    }
  }
  return [];
}

/** Why a scenario run failed (empty when it passed). */
function problems(scenario: string, code: number, checks: Check[]): string[] {
  const found: string[] = [];
  if (code !== 0) found.push(`the suite exited ${code}`);
  for (const c of checks) {
    if (c.status === "FAILURE" || c.status === "WARNING") {
      found.push(`${c.status} ${c.id}: ${c.errorMessage ?? c.description ?? ""}`);
    }
  }
  const succeeded = new Set(checks.filter((c) => c.status === "SUCCESS").map((c) => c.id));
  for (const id of SCENARIOS[scenario]) {
    if (!succeeded.has(id)) found.push(`no SUCCESS for ${id}`);
  }
  return found;
}

/** Runs one scenario against the driver: its problems, and the suite's output for a failure. */
async function runScenario(scenario: string): Promise<{ found: string[]; output: string }> {
  await using out = await tempDir("engram-conformance-client-");
  const command = `${Deno.execPath()} run -q -A --config ${CONFIG} ${DRIVER}`;
  const run = await runSuite(
    ["client", "--command", command, "--scenario", scenario, "-o", out.path],
    out.path,
  );
  return { found: problems(scenario, run.code, await checksIn(out.path)), output: run.output };
}

/** Runs `work` over `items`, at most `limit` at once, keeping the order of results. */
async function pooled<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const unavailable = await suiteUnavailable();
if (unavailable) console.log(`skipping the client conformance scenarios: ${unavailable}`);

Deno.test({
  name:
    "conformance: engram's upstream client passes the suite's client scenarios, up to an exact list",
  ignore: unavailable !== null,
  async fn(t) {
    // The harness splits the command at spaces and runs it through a shell.
    assert.doesNotMatch(`${Deno.execPath()}${CONFIG}${DRIVER}`, /[\s'"$`\\]/);
    const scenarios = Object.keys(SCENARIOS);
    const runs = await pooled(scenarios, CONCURRENCY, runScenario);
    for (const [i, scenario] of scenarios.entries()) {
      await t.step(scenario, () => {
        const { found, output } = runs[i];
        if (scenario in EXPECTED_FAILURES) {
          assert.notDeepEqual(
            found,
            [],
            `${scenario} now passes; remove it from EXPECTED_FAILURES (${
              EXPECTED_FAILURES[scenario]
            })`,
          );
        } else {
          assert.deepEqual(found, [], `${scenario} failed:\n${output}`);
        }
      });
    }
  },
});

Deno.test("conformance: the scenario list is the suite's whole client list", async () => {
  if (unavailable) return;
  await using dir = await tempDir("engram-conformance-list-");
  const listed = await runSuite(["list"], dir.path);
  const client = listed.output.split("Client scenarios")[1] ?? "";
  const names = [...client.matchAll(/^\s*- (\S+)/gm)].map((m) => m[1]);
  assert.deepEqual(names.toSorted(), Object.keys(SCENARIOS).toSorted());
});
