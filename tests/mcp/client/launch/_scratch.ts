/** @module A temp dir for tests that need a cwd the cwd rule accepts. */

/**
 * A temp dir outside /tmp, which the cwd rule refuses (world-writable): under the repository's
 * ignored .scratch/ folder.
 */
export async function scratchDir(): Promise<{ path: string } & AsyncDisposable> {
  const base = new URL("../../../../.scratch", import.meta.url).pathname;
  await Deno.mkdir(base, { recursive: true });
  const path = await Deno.makeTempDir({ dir: base, prefix: "engram-cwd-" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }).catch(() => {}),
  };
}
