/**
 * The descriptor guard (docs/upstream.md#transports-and-sessions): perl runs on the host, outside
 * any sandbox, so it must run only an absolute program and read nothing of the server's
 * environment; the server still gets that environment, exactly.
 */
import assert from "node:assert/strict";
import { HELPER_PATH, locateCommand } from "../../../../src/mcp/client/launch/command_path.ts";
import {
  guardedLaunch,
  HELPER_ENV,
  loaderKeyDenoRefuses,
} from "../../../../src/mcp/client/launch/fd_guard.ts";
import { tempDir } from "../../../helpers.ts";

/** perl as the launch facts find it; every test here needs it. */
const PERL = locateCommand("perl", HELPER_PATH);
const facts = {
  locate: (command: string) => locateCommand(command, HELPER_PATH),
  runAllowed: () => true,
};

/** Runs `program args` with `env` through the guard, in `cwd`, as stdio_process.ts spawns it. */
async function throughGuard(
  cwd: string,
  run: { program: string; args: string[]; env: Record<string, string> },
) {
  const launch = guardedLaunch(facts, run);
  assert.equal(launch.guarded, true);
  const out = await new Deno.Command(launch.program, {
    args: launch.args,
    cwd,
    clearEnv: true,
    env: launch.env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** A script that writes `marker` when it runs. */
async function fake(path: string, marker: string): Promise<void> {
  await Deno.writeTextFile(path, `#!/bin/sh\necho ran > '${marker}'\n`, { mode: 0o755 });
}

Deno.test({
  name:
    "fd guard: a program that is not an absolute path is refused; the working dir's is never run",
  ignore: PERL === null,
  async fn() {
    await using dir = await tempDir();
    const marker = `${dir.path}/ran`;
    await fake(`${dir.path}/bwrap`, marker);
    for (const program of ["bwrap", "./bwrap"]) {
      const out = await throughGuard(dir.path, {
        program,
        args: [],
        env: { PATH: `.::${HELPER_PATH}` },
      });
      assert.equal(out.code, 127, out.stderr);
      assert.equal(
        out.stderr,
        `engram: refusing to run "${program}": not an absolute path\n`,
      );
    }
    await assert.rejects(Deno.lstat(marker), Deno.errors.NotFound, "the fake never ran");
  },
});

Deno.test({
  name: "fd guard: perl itself gets only the helpers' PATH; the program gets exactly its env",
  ignore: PERL === null,
  async fn() {
    await using dir = await tempDir();
    // A POSIX.pm and a module PERL5OPT loads: each would write its marker if perl read them.
    const lib = `${dir.path}/lib`;
    await Deno.mkdir(lib);
    for (const module of ["POSIX", "Evil"]) {
      await Deno.writeTextFile(
        `${lib}/${module}.pm`,
        `open(my $m, ">", "${dir.path}/${module}-loaded"); close $m; 1;\n`,
      );
    }
    const env = {
      PATH: `.:${HELPER_PATH}`,
      PERL5LIB: lib,
      PERL5OPT: "-MEvil",
      NOTE: "a=b c\nd",
      EMPTY: "",
    };
    const launch = guardedLaunch(facts, { program: "/usr/bin/env", args: [], env });
    assert.deepEqual(launch.env, { ...HELPER_ENV }, "perl's own environment");
    const out = await throughGuard(dir.path, { program: "/usr/bin/env", args: ["-0"], env });
    assert.equal(out.code, 0, out.stderr);
    const seen = Object.fromEntries(
      out.stdout.split("\0").filter((l) => l !== "").map((l) => {
        const at = l.indexOf("=");
        return [l.slice(0, at), l.slice(at + 1)];
      }),
    );
    assert.deepEqual(seen, env, "the program's environment, nothing more or less");
    for (const module of ["POSIX", "Evil"]) {
      await assert.rejects(Deno.lstat(`${dir.path}/${module}-loaded`), Deno.errors.NotFound);
    }
  },
});

Deno.test("fd guard: without perl the program is started directly, with its own env", () => {
  const launch = guardedLaunch(
    { locate: () => null, runAllowed: () => true },
    { program: "/usr/bin/env", args: ["-0"], env: { A: "1" } },
  );
  assert.deepEqual(launch, {
    program: "/usr/bin/env",
    args: ["-0"],
    env: { A: "1" },
    guarded: false,
  });
});

Deno.test("fd guard: Deno's loader-key floor is kept only where the binary may not run everything", () => {
  // This test runs with --allow-run for every program, where Deno itself refuses nothing.
  assert.equal(Deno.permissions.querySync({ name: "run" }).state, "granted");
  assert.equal(loaderKeyDenoRefuses({ LD_PRELOAD: "/x.so" }), null);
});
