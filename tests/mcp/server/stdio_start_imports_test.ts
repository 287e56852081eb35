/**
 * @module What `engram stdio` loads before its first call, read from Deno's own module graph
 * (`deno info --json`, static imports only): an idle server's memory is mostly the code it loaded
 * (bench/RESULTS.md, "Issue 26: idle memory under 80 MiB").
 */
import assert from "node:assert/strict";
import { ROOT } from "../../helpers.ts";

interface Info {
  modules: {
    specifier: string;
    dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
  }[];
  redirects: Record<string, string>;
}

/** Every module the stdio command's static imports reach. */
async function loadedAtStart(): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "src/cli/commands/stdio.ts"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  assert.ok(out.success, "deno info failed");
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as Info;
  const byName = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const stack = [new URL("src/cli/commands/stdio.ts", `file://${ROOT}`).href];
  while (stack.length) {
    const specifier = stack.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of byName.get(specifier)?.dependencies ?? []) {
      if (dep.isDynamic || !dep.code) continue;
      stack.push(info.redirects[dep.code.specifier] ?? dep.code.specifier);
    }
  }
  return new Set([...seen].map((s) => s.replace(`file://${ROOT}`, "")));
}

Deno.test("stdio start-up: nothing of the MCP SDK loads before the first call, ajv least of all", async () => {
  const loaded = [...await loadedAtStart()];
  assert.deepEqual(loaded.filter((s) => s.includes("@modelcontextprotocol/sdk")), []);
  assert.ok(!loaded.includes("src/mcp/sdk.ts"), "src/mcp/sdk.ts re-exports the SDK's Server");
  assert.ok(!loaded.includes("src/mcp/sdk_client.ts"));
  assert.ok(!loaded.some((s) => /ajv/.test(s)));
});

Deno.test("stdio start-up: what only a call needs loads with the call", async () => {
  const loaded = await loadedAtStart();
  for (
    const lazy of [
      "src/ingest/ingest_file.ts",
      "src/ingest/ingest_url.ts",
      "src/core/sessions/extraction.ts",
      "src/core/sessions/reflect.ts",
      "src/core/sessions/recall.ts",
      "src/core/sessions/consolidate.ts",
      "src/core/answering/ask.ts",
      "src/mcp/server/prompts/prompt_builders.ts",
    ]
  ) assert.ok(!loaded.has(lazy), `${lazy} is imported at start-up`);
});
