/**
 * @module Starting a server with no descriptor of engram's but its stdio
 * (docs/upstream.md#transports-and-sessions). Deno opens its own files close-on-exec, but a
 * descriptor engram inherited without that flag (from the agent's client, a shell, a supervisor)
 * would pass on to every server, and Deno cannot close or flag a descriptor it did not open. So
 * the process engram starts is `perl` running a fixed script — never anything from the config,
 * which arrives as arguments — that closes every descriptor above 2 and then becomes the server
 * (or bwrap, or pasta) by `exec`: same pid, same process group. perl runs on the host, outside any
 * sandbox, so it gets a clean environment (PERL5LIB, PERL5OPT and the like would run code in it)
 * and an absolute program (its PATH lookup would find a file in the working directory, which the
 * server can write); the server's own environment arrives as arguments and is set right before
 * `exec`. Where perl is not installed or not in the binary's allow-run list, the server is started
 * directly, as before.
 */
import { HELPER_PATH } from "./command_path.ts";
import type { LaunchFacts } from "./launch_rules.ts";

/** The whole environment of a helper engram starts on the host (perl, bwrap, pasta). */
export const HELPER_ENV: Readonly<Record<string, string>> = Object.freeze({ PATH: HELPER_PATH });

/**
 * Reads `KEY=VALUE` arguments up to a `--` (the environment the program gets), closes descriptors
 * 3 and up (listed from /dev/fd; every possible one where that cannot be read), refuses a program
 * that is not an absolute path, then runs the rest with exactly that environment. POSIX loads
 * first, while perl's own environment is still the clean one engram gave it. perl opens its own
 * files close-on-exec, so the listing leaves nothing behind; a refused or failed exec exits 127,
 * as a shell does for a command it cannot run.
 */
export const GUARD_SCRIPT = [
  "use POSIX ();",
  "my %env;",
  'while (@ARGV && $ARGV[0] ne "--") { my ($k, $v) = split /=/, shift(@ARGV), 2; $env{$k} = $v }',
  "shift @ARGV;",
  "my @fds;",
  'if (opendir(my $d, "/dev/fd")) { @fds = grep { /^\\d+$/ && $_ > 2 } readdir $d; closedir $d }',
  "else { my $max = POSIX::sysconf(POSIX::_SC_OPEN_MAX()) || 1024; @fds = (3 .. $max) }",
  "POSIX::close($_) for @fds;",
  "if (!@ARGV || $ARGV[0] !~ m{^/}) {",
  'print STDERR "engram: refusing to run \\"", $ARGV[0] // "", "\\": not an absolute path\\n";',
  "exit 127 }",
  "%ENV = %env;",
  "exec { $ARGV[0] } @ARGV;",
  'print STDERR "engram: cannot run $ARGV[0]: $!\\n";',
  "exit 127;",
].join(" ");

/** What engram spawns: the program, its arguments and its whole environment. */
export interface GuardedLaunch {
  program: string;
  args: string[];
  env: Record<string, string>;
  guarded: boolean;
}

/**
 * The spawn that runs `program args` with environment `env` through the guard, when it can run:
 * perl with HELPER_ENV and `env` as arguments; else `program` itself with `env`. `program` must
 * be absolute (the guard refuses anything else).
 */
export function guardedLaunch(
  facts: Pick<LaunchFacts, "locate" | "runAllowed">,
  run: { program: string; args: readonly string[]; env: Readonly<Record<string, string>> },
): GuardedLaunch {
  const perl = facts.locate("perl");
  if (!perl || !facts.runAllowed(perl.path)) {
    return { program: run.program, args: [...run.args], env: { ...run.env }, guarded: false };
  }
  const pairs = Object.entries(run.env).map(([key, value]) => `${key}=${value}`);
  return {
    program: perl.path,
    args: ["-e", GUARD_SCRIPT, "--", ...pairs, "--", run.program, ...run.args],
    env: { ...HELPER_ENV },
    guarded: true,
  };
}

/**
 * The first key of `env` Deno would refuse in a spawned program's environment under a
 * list-valued `--allow-run` (a non-empty `LD_*` or `DYLD_*`), or null. Deno checks only the
 * environment it is handed, and through the guard or inside bwrap the server's environment is
 * handed over as arguments, so engram keeps Deno's floor itself (docs/upstream.md#launch-rules).
 */
export function loaderKeyDenoRefuses(env: Readonly<Record<string, string>>): string | null {
  if (runsEverything()) return null;
  const key = Object.entries(env).find(([k, v]) =>
    /^(LD_|DYLD_)/i.test(k.trim()) && v.trim() !== ""
  )?.[0];
  return key ?? null;
}

function runsEverything(): boolean {
  try {
    return Deno.permissions.querySync({ name: "run" }).state === "granted";
  } catch {
    return false;
  }
}
