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
