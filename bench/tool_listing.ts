/**
 * @module How much of an agent's context engram's tool listing takes (issue 18 §6): `tools/list`
 * from a spawned `engram stdio` at each tier, and with a typical `--tools` selection — the tools'
 * count, the listing's JSON size and tokens (cl100k_base, as memory_pack counts them; Claude's
 * tokenizer runs somewhat higher), whole and the part most clients put in the model's prompt (name,
 * description, input schema). Deterministic: it measures definitions, not time.
 *
 * Run: `deno task bench:tools [--tools LIST]`.
 */
import { parseArgs } from "node:util";
import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { connectSdk } from "./stdio_client.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    tools: {
      type: "string",
      default: "memory_search,memory_get,memory_remember,memory_update,memory_pack",
    },
  },
});

const kib = (text: string) => `${(text.length / 1024).toFixed(1)} KiB`;

const dir = await Deno.makeTempDir({ prefix: "engram-bench-tools-" });
try {
  const rows: string[] = [];
  const runs: [string, string[]][] = [
    ["read", ["--tier", "read"]],
    ["write", ["--tier", "write"]],
    ["admin", ["--tier", "admin"]],
    [`write, --tools ${values.tools}`, ["--tier", "write", "--tools", values.tools!]],
  ];
  for (const [label, extra] of runs) {
    const session = await connectSdk(dir, undefined, extra);
    try {
      const { tools } = await session.client.listTools();
      const json = JSON.stringify(tools);
      // What most clients put in the model's prompt: name, description and input schema.
      const prompt = JSON.stringify(
        tools.map((t) => ({ name: t.name, description: t.description, input: t.inputSchema })),
      );
      const largest = tools
        .map((t) => ({ name: t.name, bytes: JSON.stringify(t).length }))
        .sort((a, b) => b.bytes - a.bytes)[0];
      rows.push(
        `| ${label} | ${tools.length} | ${kib(json)} | ${countTokens(json)} | ${kib(prompt)} | ${
          countTokens(prompt)
        } | ${largest ? `${largest.name} (${(largest.bytes / 1024).toFixed(1)} KiB)` : ""} |`,
      );
    } finally {
      await session.close();
    }
  }
  console.log(
    "| tier | tools | tools/list JSON | tokens | name + description + inputSchema | tokens | largest definition |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) console.log(r);
} finally {
  await Deno.remove(dir, { recursive: true });
}
