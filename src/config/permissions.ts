/** @module The Deno permission ceiling baked into the binary; one source for the compile task and the tests. */

/**
 * Commands the compiled binary may ever spawn. It is a list, never a bare `--allow-run`, so a mode
 * can revoke single commands and Deno itself refuses anything else (the floor under launch rules).
 */
export const RUN_CEILING: readonly string[] = ["npx", "uvx", "deno", "node"];

/** `deno run`/`deno compile` flags for the ceiling. */
export function ceilingFlags(): string[] {
  return [
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-net",
    `--allow-run=${RUN_CEILING.join(",")}`,
  ];
}

/**
 * V8 settings engram runs with: a 1 MiB young-generation semi-space keeps an idle `engram stdio`
 * under 80 MB resident (about 74 MiB instead of 81) at no measurable cost to throughput.
 */
export const V8_FLAGS = "--v8-flags=--max-semi-space-size=1";

/** Flags for running or compiling engram: V8 settings, then the permission ceiling. */
export function launchFlags(): string[] {
  return [V8_FLAGS, ...ceilingFlags()];
}

/** `deno run` arguments that start main.ts the way the compiled binary runs. */
export function engramRunArgs(main: string, args: string[]): string[] {
  return ["run", "-q", ...launchFlags(), main, ...args];
}
