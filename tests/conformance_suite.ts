/**
 * @module The official MCP conformance suite (an npm package) as both conformance tests run it:
 * from a directory outside the repo, so its deno.json and lockfile stay untouched, with a clean
 * environment; and why it cannot run here, when only its download failed.
 */
import { tempDir } from "./helpers.ts";

/** The suite's package, pinned. */
export const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";

/** Runs the suite CLI with ARGS in `cwd` (outside the repo). */
export async function runSuite(
  args: string[],
  cwd: string,
): Promise<{ code: number; output: string }> {
  const pass = ["PATH", "HOME", "DENO_DIR", "NPM_CONFIG_REGISTRY", "HTTPS_PROXY", "NO_PROXY"];
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of pass) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SUITE, ...args],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code, output: text.decode(stdout) + text.decode(stderr) };
}

/** Why the suite cannot run here, or null when its npm package resolves. */
export async function suiteUnavailable(): Promise<string | null> {
  await using dir = await tempDir("engram-conformance-");
  const out = await runSuite(["list"], dir.path);
  if (out.code === 0) return null;
  // Only a failed download excuses the test; any other failure is a real failure.
  if (/error sending request for url|npm package not found in cache/i.test(out.output)) {
    return `${SUITE} cannot be fetched (offline?):\n${
      out.output.split("\n").slice(0, 4).join("\n")
    }`;
  }
  throw new Error(`${SUITE} list failed:\n${out.output}`);
}
