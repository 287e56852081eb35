/**
 * @module The official MCP conformance suite's client scenarios against engram's upstream
 * session layer (conformance_driver.ts): initialize, tools_call, elicitation defaults (SEP-1034)
 * and SSE retry. Each scenario must pass with its SUCCESS checks present and no FAILURE or
 * WARNING, unless it is listed in EXPECTED_FAILURES — and a listed scenario that passes fails
 * the test too, so the list stays exact. Skipped, with the reason, only when the suite's npm
 * package cannot be fetched.
 */
import assert from "node:assert/strict";
import { tempDir } from "../../helpers.ts";
import { runSuite, suiteUnavailable } from "../../conformance_suite.ts";

const DRIVER = new URL("./conformance_driver.ts", import.meta.url).pathname;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

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
};

/** Scenarios known to fail, and why. Empty: all four pass. */
const EXPECTED_FAILURES: Record<string, string> = {};

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  description?: string;
}

/** The checks of the one scenario run written under `dir`. */
async function checksIn(dir: string): Promise<Check[]> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      return JSON.parse(await Deno.readTextFile(`${dir}/${entry.name}/checks.json`));
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

const unavailable = await suiteUnavailable();
if (unavailable) console.log(`skipping the client conformance scenarios: ${unavailable}`);

Deno.test({
  name:
    "conformance: engram's upstream client passes the suite's client scenarios, up to an exact list",
  ignore: unavailable !== null,
  async fn(t) {
    for (const scenario of Object.keys(SCENARIOS)) {
      await t.step(scenario, async () => {
        await using out = await tempDir("engram-conformance-client-");
        const command = `${Deno.execPath()} run -q -A --config ${CONFIG} ${DRIVER}`;
        // The harness splits the command at spaces and runs it through a shell.
        assert.doesNotMatch(`${Deno.execPath()}${CONFIG}${DRIVER}`, /[\s'"$`\\]/);
        const run = await runSuite(
          ["client", "--command", command, "--scenario", scenario, "-o", out.path],
          out.path,
        );
        const found = problems(scenario, run.code, await checksIn(out.path));
        if (scenario in EXPECTED_FAILURES) {
          assert.notDeepEqual(
            found,
            [],
            `${scenario} now passes; remove it from EXPECTED_FAILURES (${
              EXPECTED_FAILURES[scenario]
            })`,
          );
        } else {
          assert.deepEqual(found, [], `${scenario} failed:\n${run.output}`);
        }
      });
    }
  },
});
