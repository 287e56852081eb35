/**
 * @module The pinned `@modelcontextprotocol/server-everything`, as the tests that use a real
 * third-party upstream run it: from Deno's cache (`.ci/run` caches it once; no download per test),
 * and why it cannot run here when it is not cached.
 */

/** The package, pinned. */
export const EVERYTHING_PACKAGE = "npm:@modelcontextprotocol/server-everything@2026.8.31";
/** `deno` arguments that run it on stdio from the cache only. */
export const EVERYTHING_ARGS = ["run", "--cached-only", "--allow-env", EVERYTHING_PACKAGE, "stdio"];

/** Why the pinned package cannot run from the cache here, or null. */
export async function everythingNotCached(): Promise<string | null> {
  const dir = await Deno.makeTempDir({ prefix: "engram-everything-" });
  try {
    // Outside the repo, so the probe reads no deno.json and touches no lockfile.
    const out = await new Deno.Command(Deno.execPath(), {
      args: EVERYTHING_ARGS,
      cwd: dir,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    if (out.code === 0) return null;
    const why = new TextDecoder().decode(out.stderr).trim().split("\n")[0];
    return `${EVERYTHING_PACKAGE} is not in Deno's cache (${why}); cache it with: deno cache ${EVERYTHING_PACKAGE}`;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
