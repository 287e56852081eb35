/**
 * @module Starting a server with no descriptor of engram's but its stdio
 * (docs/upstream.md#transports-and-sessions). Deno opens its own files close-on-exec, but a
 * descriptor engram inherited without that flag (from the agent's client, a shell, a supervisor)
 * would pass on to every server, and Deno cannot close or flag a descriptor it did not open. So
 * the process engram starts is `perl` running a fixed script — never anything from the config,
 * which arrives as arguments — that closes every descriptor above 2 and then becomes the server
 * (or bwrap) by `exec`: same pid, same process group, same environment. Where perl is not
 * installed or not in the binary's allow-run list, the server is started directly, as before.
 */
import type { LaunchFacts } from "./launch_rules.ts";

/**
 * Closes descriptors 3 and up (listed from /dev/fd; every possible one where that cannot be
 * read), then runs its arguments. perl opens its own files close-on-exec, so the listing leaves
 * nothing behind; a failed exec exits 127, as a shell does for a command it cannot run.
 */
export const GUARD_SCRIPT = [
  "use POSIX ();",
  "my @fds;",
  'if (opendir(my $d, "/dev/fd")) { @fds = grep { /^\\d+$/ && $_ > 2 } readdir $d; closedir $d }',
  "else { my $max = POSIX::sysconf(POSIX::_SC_OPEN_MAX()) || 1024; @fds = (3 .. $max) }",
  "POSIX::close($_) for @fds;",
  "exec { $ARGV[0] } @ARGV;",
  'print STDERR "engram: cannot run $ARGV[0]: $!\\n";',
  "exit 127;",
].join(" ");

/** The program and arguments that start `program args` through the guard, when it can run. */
export function guardedLaunch(
  facts: Pick<LaunchFacts, "locate" | "runAllowed">,
  run: { program: string; args: readonly string[] },
): { program: string; args: string[]; guarded: boolean } {
  const perl = facts.locate("perl");
  if (!perl || !facts.runAllowed(perl.path)) {
    return { program: run.program, args: [...run.args], guarded: false };
  }
  return {
    program: perl.path,
    args: ["-e", GUARD_SCRIPT, "--", run.program, ...run.args],
    guarded: true,
  };
}
