/** @module Runs the retrieval benchmark (bench/retrieval.ts) as a subprocess, for the harness tests. */

/** The run's exit code and output. */
export interface BenchRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `deno run --allow-all bench/retrieval.ts ...args`, to its end. */
export async function runRetrievalBench(args: string[]): Promise<BenchRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      new URL("../../bench/retrieval.ts", import.meta.url).pathname,
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}
