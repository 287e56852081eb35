/**
 * @module Starting a stdio upstream server as a process, only after every launch rule passes:
 * minimal environment, only stdin/stdout/stderr (fd_guard.ts), its own session and process group, working
 * directory `<data dir>/sandboxes/<server>` (0700) unless `cwd` is set, and under `restricted`
 * inside bubblewrap. Stopping follows MCP's stdio shutdown: close stdin, then SIGTERM, then
 * SIGKILL, each to the whole process group, so helpers a server started go with it.
 */
import type { StdioServerConfig } from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import { settlesWithin } from "../../../core/settles_within.ts";
import { launchEnvironment } from "./launch_env.ts";
import {
  blockedMessage,
  evaluateLaunch,
  type LaunchFacts,
  type LaunchVerdict,
} from "./launch_rules.ts";
import { guardedLaunch, HELPER_ENV, loaderKeyDenoRefuses } from "./fd_guard.ts";
import { prepareSandboxDir, sandboxLaunch } from "./sandbox.ts";

/** How a server process ended. */
export interface ProcessExit {
  code: number;
  signal: Deno.Signal | null;
}

/** A running stdio server. The MCP client transport sits on `stdin` and `stdout`. */
export interface StdioProcess {
  readonly server: string;
  /** The process engram started: the server itself, or bwrap (or pasta) under `restricted`. */
  readonly pid: number;
  readonly profile: "restricted" | "standard";
  readonly sandboxDir: string;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  /** The last bytes the server wrote to stderr (untrusted text: sanitise before printing). */
  stderrText(): string;
  /** Settles when the process has ended and its group was cleared. */
  readonly exited: Promise<ProcessExit>;
  /** Closes stdin, then TERM, then KILL to the group, `graceMs` apart; resolves when it is gone. */
  stop(options?: { graceMs?: number }): Promise<ProcessExit>;
}

/** Options of startStdioServer. */
export interface StartOptions {
  facts: LaunchFacts;
  /**
   * The verdict of evaluateLaunch for this server and these facts, when the caller has just
   * evaluated it (a connection does, to tell a blocked server apart); evaluated here otherwise.
   */
  verdict?: LaunchVerdict;
  /** Wait between the stop steps; default 2000 ms. */
  graceMs?: number;
  /** How much of stderr to keep (the latest bytes); default 64 KiB. */
  stderrBytes?: number;
}

/**
 * Evaluates the launch rules (unless `options.verdict` holds them) and starts the server when all
 * pass. A blocked server throws `forbidden` naming the rule and the fix, and no process is started.
 */
export async function startStdioServer(
  server: StdioServerConfig,
  options: StartOptions,
): Promise<StdioProcess> {
  const { facts } = options;
  const verdict = options.verdict ?? await evaluateLaunch(server, facts);
  if (verdict.blocked) {
    throw new EngramError("forbidden", blockedMessage(server.name, verdict.blocked));
  }
  const command = server.command as string; // the command_token rule passed
  // The executable the rules judged, by its absolute path: nothing on the way (perl, bwrap)
  // looks a name up again through a PATH that may name the server's own writable dir.
  const location = facts.locate(command);
  if (!location) {
    throw new EngramError(
      "not_found",
      `mcp server ${JSON.stringify(server.name)}: command ${
        JSON.stringify(command)
      } is no longer found on PATH; run engram mcp doctor ${server.name}`,
    );
  }
  const sandboxDir = await prepareSandboxDir(facts.dataDir, server.name);
  // The cwd rule judged this very path (`~` expanded); the process runs in it.
  const cwd = verdict.cwd;
  const restricted = server.sandbox_profile === "restricted";
  const { vars } = launchEnvironment(server.env, {
    env: facts.env,
    home: restricted ? sandboxDir : undefined,
  });
  // Under restricted: bubblewrap, or pasta around it for a network without the host's loopback;
  // the server's environment is set inside, and bwrap and pasta run with the helpers' own.
  const run = restricted && facts.sandbox.ok
    ? {
      ...await sandboxLaunch(facts.sandbox, { sandboxDir, cwd, network: server.network }, {
        command: location.path,
        args: server.args,
        env: vars,
      }),
      env: HELPER_ENV,
    }
    : { program: location.path, args: server.args, env: vars };
  // Messages name the configured command, or the sandbox program Deno is asked about.
  const shown = run.program === location.path ? command : run.program;
  const refused = loaderKeyDenoRefuses(vars);
  if (refused) {
    throw spawnError(
      server.name,
      shown,
      new Deno.errors.NotCapable(`spawn with ${refused} environment variable`),
    );
  }
  // Through the guard, Deno checks only perl against the allow-run list: the same check, here.
  const launch = guardedLaunch(facts, run);
  if (launch.guarded && !facts.runAllowed(run.program)) {
    throw spawnError(server.name, shown, new Deno.errors.NotCapable(run.program));
  }
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(launch.program, {
      args: launch.args,
      cwd: restricted ? sandboxDir : cwd ?? sandboxDir,
      clearEnv: true,
      env: launch.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      // setsid(): its own session and process group, so the group can be signalled as one.
      detached: true,
    }).spawn();
  } catch (err) {
    throw spawnError(server.name, shown, err);
  }
  return track(child, {
    server: server.name,
    profile: restricted ? "restricted" : "standard",
    sandboxDir,
    graceMs: options.graceMs ?? 2000,
    stderrBytes: options.stderrBytes ?? 64 * 1024,
  });
}

function track(
  child: Deno.ChildProcess,
  o: {
    server: string;
    profile: "restricted" | "standard";
    sandboxDir: string;
    graceMs: number;
    stderrBytes: number;
  },
): StdioProcess {
  const stderr = keepTail(child.stderr, o.stderrBytes);
  const signal = (sig: Deno.Signal) => signalGroup(child, sig);
  const exited: Promise<ProcessExit> = child.status.then(async (status) => {
    // The leader is gone; whatever it left running in its group goes too.
    await signal("SIGKILL");
    await stderr.done;
    return { code: status.code, signal: status.signal };
  });
  let stopping: Promise<ProcessExit> | null = null;
  return {
    server: o.server,
    pid: child.pid,
    profile: o.profile,
    sandboxDir: o.sandboxDir,
    stdin: child.stdin,
    stdout: child.stdout,
    stderrText: stderr.text,
    exited,
    stop(options = {}) {
      stopping ??= (async () => {
        const grace = options.graceMs ?? o.graceMs;
        if (!child.stdin.locked) await child.stdin.close().catch(() => {});
        if (!await settlesWithin(exited, grace)) {
          await signal("SIGTERM");
          if (!await settlesWithin(exited, grace)) await signal("SIGKILL");
        }
        const result = await exited;
        if (!child.stdout.locked) await child.stdout.cancel().catch(() => {});
        return result;
      })();
      return stopping;
    },
  };
}

/**
 * Signals the process group through the `kill` program: `Deno.kill` refuses negative pids under a
 * list-valued `--allow-run`. Where `kill` cannot run, only the leader is signalled (under
 * `restricted` that is bwrap — or pasta, whose bwrap dies with it — and bwrap's PID namespace
 * ends every process inside with it).
 */
async function signalGroup(child: Deno.ChildProcess, signal: Deno.Signal): Promise<void> {
  try {
    await new Deno.Command("kill", {
      args: ["-s", signal.replace(/^SIG/, ""), "--", `-${child.pid}`],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  } catch {
    // kill is not installed or not in this binary's allow-run list.
  }
  try {
    child.kill(signal);
  } catch {
    // Already exited.
  }
}

/**
 * Reads a stream to its end, keeping only its last `limit` bytes. Chunks are kept as read (the
 * oldest one trimmed) and joined only when the text is asked for, so a chatty server costs no
 * copy of the whole tail per chunk.
 */
function keepTail(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): { text: () => string; done: Promise<void> } {
  const chunks: Uint8Array[] = [];
  let head = 0; // chunks before it were dropped
  let size = 0; // bytes in chunks[head..]
  let dropped = 0;
  const drop = (bytes: number) => {
    size -= bytes;
    dropped += bytes;
  };
  const done = (async () => {
    try {
      for await (const chunk of stream) {
        chunks.push(chunk);
        size += chunk.length;
        while (size > limit) {
          const first = chunks[head];
          const excess = size - limit;
          if (first.length > excess) {
            chunks[head] = first.subarray(excess);
            drop(excess);
          } else {
            chunks[head++] = EMPTY;
            drop(first.length);
          }
        }
        // Forget dropped chunks once they are half the list: amortised constant per chunk.
        if (head > chunks.length / 2) {
          chunks.splice(0, head);
          head = 0;
        }
      }
    } catch {
      // The pipe broke with the process; what was read is kept.
    }
  })();
  return {
    text: () => {
      const kept = new Uint8Array(size);
      let at = 0;
      for (let i = head; i < chunks.length; i++) {
        kept.set(chunks[i], at);
        at += chunks[i].length;
      }
      return (dropped ? `[${dropped} earlier bytes dropped]\n` : "") +
        new TextDecoder().decode(kept);
    },
    done,
  };
}

const EMPTY = new Uint8Array(0);

function spawnError(server: string, program: string, err: unknown): EngramError {
  const what = `mcp server ${JSON.stringify(server)}: ${JSON.stringify(program)}`;
  const loader = /with (\S+) environment variable/.exec((err as Error)?.message ?? "")?.[1];
  if (err instanceof Deno.errors.NotCapable && loader) {
    // Deno's own floor under allow_env (docs/upstream.md#launch-rules): a loader key needs the
    // unrestricted --allow-run no engram binary has, whatever the server's allow_env says.
    return new EngramError(
      "forbidden",
      `${what} was not started: Deno refuses to start a program with ${loader} in its environment unless the binary may run every program; remove ${loader} from the server's env`,
      { cause: err },
    );
  }
  if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
    return new EngramError(
      "forbidden",
      `${what} is not in this binary's allow-run list, so Deno refused to start it; build with it: deno task compile --allow-run=...`,
      { cause: err },
    );
  }
  return new EngramError(
    "invalid_argument",
    `${what} could not be started: ${(err as Error).message}; run engram mcp doctor ${server}`,
    { cause: err },
  );
}
