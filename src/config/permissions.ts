/** @module The Deno permission ceiling baked into the binary; one source for the compile task and the tests. */

/**
 * The reviewed launchers stdio upstream servers may be started with. A build can ship another
 * list (`deno task compile --allow-run=a,b`); nothing outside the baked list can ever start.
 */
export const REVIEWED_LAUNCHERS: readonly string[] = ["npx", "node", "deno", "uvx", "docker"];

/**
 * Programs engram itself runs around an upstream server, never as one: `bwrap` is the
 * `restricted` sandbox (under it Deno sees only bwrap; engram's launch rules cover the inner
 * command), and `kill` signals a server's whole process group, because `Deno.kill` needs an
 * unrestricted `--allow-run` and `ChildProcess.kill` reaches only the direct child; `perl` runs
 * the fixed script that closes every descriptor but stdio before it becomes the server (Deno
 * cannot close a descriptor it did not open; engram checks the server's own command against the
 * list before); `pasta` gives a `restricted` server with `network: true` a network of its own,
 * without the host's loopback. Each comes with the fix the launch rules give a server config that
 * names it as its own command.
 */
export const LAUNCH_HELPERS: ReadonlyMap<string, string> = new Map([
  ["bwrap", "set sandbox_profile: restricted and engram runs the server in bubblewrap itself"],
  ["kill", "engram uses it to stop servers; name the server's own executable"],
  [
    "perl",
    "engram starts servers through it so they inherit none of its descriptors; name the server's own executable",
  ],
  [
    "pasta",
    "set network: true under sandbox_profile: restricted and engram runs the server behind pasta itself",
  ],
]);

/**
 * Commands the compiled binary may ever spawn. It is a list, never a bare `--allow-run`, so a mode
 * can revoke single commands and Deno itself refuses anything else (the floor under launch rules).
 */
export const RUN_CEILING: readonly string[] = [
  ...REVIEWED_LAUNCHERS,
  ...LAUNCH_HELPERS.keys(),
];

/** `deno run`/`deno compile` flags for the ceiling; `run` replaces the default command list. */
export function ceilingFlags(run: readonly string[] = RUN_CEILING): string[] {
  return [
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-net",
    // Free space of the data directory's file system, for `engram doctor`; nothing else.
    "--allow-sys=statfs",
    `--allow-run=${run.join(",")}`,
    // A permission engram dropped (or never had) fails at once: on a terminal Deno would otherwise
    // ask the operator mid-command and swallow what they type next (engram mcp review's answers).
    "--no-prompt",
  ];
}

/**
 * V8 settings engram runs with: a 1 MiB young-generation semi-space keeps the heap small at no
 * measurable cost to throughput, and `gc` lets `engram stdio` drop its start-up garbage once the
 * client is quiet (src/mcp/server/idle_compaction.ts); together they keep an idle `engram stdio`
 * under 80 MB resident.
 */
export const V8_FLAGS = "--v8-flags=--max-semi-space-size=1,--expose-gc";

/** Flags for running or compiling engram: V8 settings, then the permission ceiling. */
export function launchFlags(run: readonly string[] = RUN_CEILING): string[] {
  return [V8_FLAGS, ...ceilingFlags(run)];
}

/** `deno run` arguments that start main.ts the way the compiled binary runs. */
export function engramRunArgs(main: string, args: string[]): string[] {
  return ["run", "-q", ...launchFlags(), main, ...args];
}

/**
 * Parses a `--allow-run=a,b` list for a custom build: names or absolute paths, no empty entries,
 * never empty (a bare `--allow-run` would let a mode revoke nothing).
 */
export function parseRunList(text: string): string[] {
  const list = text.split(",").map((c) => c.trim());
  const bad = list.find((c) => c === "" || /[\s=]/.test(c));
  if (list.length === 0 || bad !== undefined) {
    throw new Error(
      `--allow-run needs a comma-separated list of commands such as npx,node,bwrap,kill; got "${text}"`,
    );
  }
  return [...new Set(list)];
}
