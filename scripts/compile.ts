/**
 * @module Builds the standalone engram binary with the permission ceiling from src/config/permissions.ts.
 *
 * Usage: deno task compile [--output FILE] [--target TRIPLE]
 * `deno compile` needs the denort runtime. Where it cannot be downloaded, point DENORT_BIN at a
 * local copy (Deno honours it).
 */
import { parseArgs } from "node:util";
import { launchFlags } from "../src/config/permissions.ts";

/** The `deno compile` argument list for an output file and optional target. */
export function compileArgs(output: string, target?: string): string[] {
  return [
    "compile",
    "--quiet",
    ...launchFlags(),
    ...(target ? ["--target", target] : []),
    "--output",
    output,
    new URL("../main.ts", import.meta.url).pathname,
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { output: { type: "string", default: "dist/engram" }, target: { type: "string" } },
  });
  const args = compileArgs(values.output!, values.target);
  console.error(`deno ${args.join(" ")}`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) {
    console.error(
      "deno compile failed; if it could not download the denort runtime, set DENORT_BIN to a local denort binary",
    );
  }
  Deno.exitCode = code;
}
