/**
 * @module Builds the standalone engram binary with the permission ceiling from src/config/permissions.ts.
 *
 * Usage: deno task compile [--output FILE] [--target TRIPLE] [--allow-run=a,b]
 * `--allow-run` bakes another list of commands the binary may spawn (default: the reviewed
 * launchers npx, node, deno, uvx, docker plus engram's helpers bwrap and kill); a reviewed upstream
 * command outside the list is blocked with "not in this binary's allow-run list".
 * `deno compile` needs the denort runtime. Where it cannot be downloaded, point DENORT_BIN at a
 * local copy (Deno honours it).
 */
import { parseArgs } from "node:util";
import { launchFlags, parseRunList, RUN_CEILING } from "../src/config/permissions.ts";

/** The `deno compile` argument list for an output file, an optional target and run list. */
export function compileArgs(
  output: string,
  options: { target?: string; run?: readonly string[] } = {},
): string[] {
  return [
    "compile",
    "--quiet",
    ...launchFlags(options.run ?? RUN_CEILING),
    ...(options.target ? ["--target", options.target] : []),
    "--output",
    output,
    new URL("../main.ts", import.meta.url).pathname,
  ];
}

/** Parses the task's flags, runs `deno compile`, and returns its exit code. */
async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      output: { type: "string", default: "dist/engram" },
      target: { type: "string" },
      "allow-run": { type: "string" },
    },
  });
  let run: string[] | undefined;
  try {
    run = values["allow-run"] === undefined ? undefined : parseRunList(values["allow-run"]);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const args = compileArgs(values.output!, { target: values.target, run });
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
  return code;
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
