/** @module A real `engram serve` child process for the HTTP load benchmark: token, config, URL, CPU. */
import { spawnServe as spawnTestServe } from "../tests/http/http_helpers.ts";
import { engramRunArgs } from "../src/config/permissions.ts";
import { engramEnv } from "../tests/helpers.ts";

/** main.ts of this checkout. */
const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** A listening `engram serve`. */
export interface ServeProcess {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  pid: number;
  /** SIGTERM, then the exit code and everything it logged. */
  stop(): Promise<{ code: number; stderr: string }>;
}

/** Runs `engram ARGS` in `dataDir` and returns its stdout; throws on a non-zero exit. */
export async function engramOutput(dataDir: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: engramRunArgs(MAIN, args),
    cwd: dataDir,
    env: engramEnv(dataDir),
    clearEnv: true,
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  if (out.code !== 0) throw new Error(`engram ${args.join(" ")}: ${dec.decode(out.stderr)}`);
  return dec.decode(out.stdout);
}

/** A real token from `engram tokens create`, so every request pays for bearer verification. */
export async function createToken(dataDir: string, client: string): Promise<string> {
  const out = await engramOutput(dataDir, [
    "tokens",
    "create",
    "--client",
    client,
    "--tier",
    "read",
  ]);
  return out.trim().split("\n")[0];
}

/** Spawns `engram serve --port 0` on 127.0.0.1 with `config` as ENGRAM_CONFIG, once it listens. */
export async function spawnServe(dataDir: string, config: string): Promise<ServeProcess> {
  const { child, url, stderr } = await spawnTestServe(dataDir, ["--host", "127.0.0.1"], {
    env: { ENGRAM_CONFIG: config },
  });
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      const { code } = await child.status;
      return { code, stderr: await stderr() };
    },
  };
}

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * (1000 / USER_HZ);
}
