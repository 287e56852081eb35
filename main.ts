/** @module engram: local-first memory server for AI agents. The only place that exits the process. */
import { processEnv } from "./src/config/env.ts";
import { userDirectory } from "./src/config/paths.ts";
import { runCli } from "./src/cli/app.ts";
import { consoleOutput } from "./src/cli/output.ts";

if (import.meta.main) {
  const env = processEnv();
  const code = await runCli(Deno.args, {
    env,
    cwd: userDirectory(env, Deno.cwd()),
    out: consoleOutput({ noColor: (env.get("NO_COLOR") ?? "") !== "" }),
    stdin: Deno.stdin.readable,
    stdinIsTerminal: Deno.stdin.isTerminal(),
    stdout: Deno.stdout.writable,
  });
  Deno.exit(code);
}
