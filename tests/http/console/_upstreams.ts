/** @module An in-process console whose upstream servers are the seeded ones, on the composition root's real `consoleUpstreams`. */
import { envFrom } from "../../../src/config/env.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { consoleUpstreams } from "../../../src/cli/console_upstreams.ts";
import { openRuntime, type Runtime } from "../../../src/cli/runtime.ts";
import { engramEnv, tempDir } from "../../helpers.ts";
import { type ConsoleServer, startConsole } from "./_console.ts";
import { seed } from "./_seed.ts";

/** Runs `fn` against an in-process console whose upstreams are the seeded ones. */
export async function withUpstreams(
  fn: (s: ConsoleServer, runtime: Runtime) => Promise<void>,
): Promise<void> {
  await using dir = await tempDir("engram-console-upstreams-");
  await seed(dir.path);
  const env = envFrom(engramEnv(dir.path));
  const config = loadConfig({}, { env, cwd: dir.path });
  const runtime = await openRuntime(config);
  try {
    await using s = await startConsole({
      app: { console: { upstreams: consoleUpstreams(runtime, { config, env }) } },
    });
    await fn(s, runtime);
  } finally {
    runtime.close();
  }
}
