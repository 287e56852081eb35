/**
 * @module The binary's `--allow-run` list as Deno enforces it right now. The list is baked in at
 * build time (`deno task compile --allow-run=a,b`) and narrowed per mode at start-up, so it is
 * read back from Deno's own permission state rather than from a copy. Deno resolves each listed
 * name through PATH and compares paths, so `node` and `/usr/bin/node` are the same entry. Under
 * the `restricted` profile Deno only ever sees `bwrap`; engram's launch rules apply the list to
 * the inner command as well.
 */
import { RUN_CEILING } from "../../../config/permissions.ts";

/** Whether this process may spawn `command` (Deno `run` permission for exactly that command). */
export function runAllowed(command: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "run", command }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * The commands among `candidates` (default: the shipped ceiling) that this process may spawn.
 * `installed` filters out names that resolve nowhere: asking Deno about those makes it print
 * a "Failed to resolve" line on stderr.
 */
export function grantedRunList(
  options: { candidates?: readonly string[]; installed?: (command: string) => boolean } = {},
): string[] {
  const { candidates = RUN_CEILING, installed = () => true } = options;
  return candidates.filter((c) => installed(c) && runAllowed(c));
}
