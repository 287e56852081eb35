/**
 * @module Builds the standalone engram binary with the permission ceiling from src/config/permissions.ts.
 *
 * Usage: deno task compile [--output FILE] [--target TRIPLE] [--allow-run=a,b]
 * `--target` is one of TARGETS (engram targets Linux and macOS); the release workflow builds each
 * as `dist/engram-<target>`.
 * `--allow-run` bakes another list of commands the binary may spawn (default: the reviewed
 * launchers npx, node, deno, uvx, docker plus engram's helpers bwrap and kill); a reviewed upstream
 * command outside the list is blocked with "not in this binary's allow-run list".
 * `deno compile` needs the denort runtime. Where it cannot be downloaded, point DENORT_BIN at a
 * local copy (Deno honours it).
 */
import { parseArgs } from "node:util";
import { launchFlags, parseRunList, RUN_CEILING } from "../src/config/permissions.ts";

/** The `deno compile --target` triples engram is released for: Linux and macOS, never Windows. */
export const TARGETS: readonly string[] = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
];

/** The task's parsed flags: where to write the binary, for which target, with which run list. */
export interface CompileOptions {
  output: string;
  target?: string;
  run?: string[];
}

/** Parses the task's flags; throws on a target engram does not support or a malformed run list. */
export function parseCompileArgs(argv: string[]): CompileOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      output: { type: "string", default: "dist/engram" },
      target: { type: "string" },
      "allow-run": { type: "string" },
    },
  });
  const target = values.target;
  // Refused here rather than by deno compile, so a release can never ship a platform engram
  // was not written for (Windows has no POSIX paths, bwrap or kill).
  if (target !== undefined && !TARGETS.includes(target)) {
    throw new Error(`unsupported --target "${target}"; engram builds for: ${TARGETS.join(", ")}`);
  }
  const run = values["allow-run"] === undefined ? undefined : parseRunList(values["allow-run"]);
  return { output: values.output!, target, run };
}

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
    // The web console's script, stylesheet and icon (text imports, embedded with the code; named
    // here too so the binary carries them whatever the module graph says: docs/console.md#assets).
    "--include",
    new URL("../src/http/console/assets", import.meta.url).pathname,
    "--output",
    output,
    new URL("../main.ts", import.meta.url).pathname,
  ];
}

/** Parses the task's flags, runs `deno compile`, and returns its exit code. */
async function main(argv: string[]): Promise<number> {
  let options: CompileOptions;
  try {
    options = parseCompileArgs(argv);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const args = compileArgs(options.output, options);
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
