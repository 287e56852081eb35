import assert from "node:assert/strict";
import { EngramError } from "../../../../src/core/errors.ts";
import { probeSandbox } from "../../../../src/mcp/client/launch/sandbox.ts";
import { startStdioServer } from "../../../../src/mcp/client/launch/stdio_process.ts";
import { tempDir } from "../../../helpers.ts";
import {
  BWRAP,
  DENO_HIDDEN,
  goneWithin,
  jsonLines,
  launchable,
  processesWith,
  TEST_DENO,
  testFacts,
  testSigner,
  token,
  TREE_SERVER,
  UPSTREAM_DIR,
} from "../launch_setup.ts";

const signer = await testSigner();

/** Whether a test of `profile` can start Deno here (restricted needs bubblewrap and a shown Deno). */
const runs = (profile: string) => profile === "standard" || (BWRAP.ok && DENO_HIDDEN === null);

/** A tree_server launch under `profile`; restricted runs it from its (read-only) fixtures dir. */
async function treeServer(profile: "standard" | "restricted", mark: string, extra: string[] = []) {
  return await launchable(signer, {
    name: "tree",
    command: profile === "restricted" ? TEST_DENO : "deno",
    args: ["run", "-A", "--no-config", TREE_SERVER, mark, ...extra],
    sandbox_profile: profile,
    ...(profile === "restricted" ? { cwd: UPSTREAM_DIR } : {}),
  });
}

for (const profile of ["standard", "restricted"] as const) {
  Deno.test({
    name:
      `stdio process (${profile}): stdin/stdout carry lines, stop kills the server and its grandchild`,
    ignore: !runs(profile),
    async fn() {
      await using dir = await tempDir();
      const mark = token();
      const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
      const proc = await startStdioServer(await treeServer(profile, mark), { facts });
      const lines = jsonLines(proc.stdout);
      try {
        assert.equal((await lines.next()).ready, true);
        assert.equal(processesWith(`1000.${mark}`).length, 1, "the grandchild runs");
        const writer = proc.stdin.getWriter();
        await writer.write(new TextEncoder().encode("echo hello\n"));
        assert.deepEqual(await lines.next(), { line: "echo hello", result: "echo:hello" });
        writer.releaseLock();
        assert.equal(proc.profile, profile);
        // The server exits on the end of stdin; its grandchild ignores that and must still go.
        const exit = await proc.stop({ graceMs: 3000 });
        assert.equal(exit.code, 0, proc.stderrText());
        assert.deepEqual(await goneWithin(`1000.${mark}`, 2000), [], "the grandchild is gone");
        assert.match(proc.stderrText(), /tree_server: started/);
      } finally {
        await lines.close();
        await proc.stop({ graceMs: 100 });
      }
    },
  });

  Deno.test({
    name:
      `stdio process (${profile}): a server ignoring stdin's end and SIGTERM is killed, tree and all`,
    ignore: !runs(profile),
    async fn() {
      await using dir = await tempDir();
      const mark = token();
      const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
      const proc = await startStdioServer(await treeServer(profile, mark, ["--stubborn"]), {
        facts,
      });
      const lines = jsonLines(proc.stdout);
      try {
        assert.equal((await lines.next()).ready, true);
        const started = Date.now();
        const exit = await proc.stop({ graceMs: 300 });
        // Under restricted, SIGTERM ends bwrap, and bubblewrap then kills everything inside.
        const expected = profile === "standard" ? "SIGKILL" : "SIGTERM";
        assert.equal(exit.signal, expected, `exit ${JSON.stringify(exit)}`);
        const waited = Date.now() - started;
        assert.ok(
          waited >= (profile === "standard" ? 550 : 280),
          `waited ${waited} ms between steps`,
        );
        assert.deepEqual(await goneWithin(`1000.${mark}`, 2000), []);
      } finally {
        await lines.close();
      }
    },
  });
}

Deno.test("stdio process: minimal environment, own session, sandbox dir 0700, no inherited descriptors", async () => {
  await using dir = await tempDir();
  const mark = token();
  const facts = await testFacts(dir.path, {
    reviewKeys: [signer.reviewKey],
    vars: { UPSTREAM_TOKEN: "t-123" },
  });
  const server = await launchable(signer, {
    name: "envcheck",
    command: "deno",
    args: ["run", "-A", "--no-config", TREE_SERVER, mark],
    env: { API_TOKEN: "${UPSTREAM_TOKEN}", MODE: "test" },
  });
  // An open file of ours must not show up in the child.
  using _held = await Deno.open(`${dir.path}/held.txt`, { create: true, write: true });
  const proc = await startStdioServer(server, { facts });
  const lines = jsonLines(proc.stdout);
  try {
    const ready = await lines.next();
    const writer = proc.stdin.getWriter();
    await writer.write(new TextEncoder().encode("env\ncwd\nproc\n"));
    const env = (await lines.next()).result as Record<string, string>;
    const cwd = (await lines.next()).result as string;
    const own = (await lines.next()).result as { pgrp: number; session: number; fds: string[] };
    writer.releaseLock();
    assert.deepEqual(Object.keys(env).sort(), ["API_TOKEN", "HOME", "LANG", "MODE", "PATH"]);
    assert.equal(env.API_TOKEN, "t-123", "a ${VAR} reference is expanded at launch");
    assert.equal(cwd, `${dir.path}/sandboxes/envcheck`);
    assert.equal(Deno.statSync(cwd).mode! & 0o777, 0o700);
    assert.equal(Deno.statSync(`${dir.path}/sandboxes`).mode! & 0o777, 0o700);
    // setsid(): the server leads its own session and process group.
    assert.equal(own.pgrp, ready.pid, "own process group");
    assert.equal(own.session, ready.pid, "own session");
    assert.ok(!own.fds.some((target) => target.endsWith("held.txt")), own.fds.join("\n"));
  } finally {
    await lines.close();
    await proc.stop({ graceMs: 2000 });
  }
});

for (const profile of ["standard", "restricted"] as const) {
  Deno.test({
    name: `stdio process (${profile}): a descriptor engram inherited does not reach the server`,
    ignore: !runs(profile),
    async fn() {
      await using dir = await tempDir();
      const held = `${dir.path}/held-${token()}.txt`;
      await Deno.writeTextFile(held, "x");
      // The shell opens it without close-on-exec, as the agent's client or a supervisor might.
      const driver = new URL("./inherited_fds_driver.ts", import.meta.url).pathname;
      const out = await new Deno.Command("sh", {
        args: ["-c", 'exec "$0" run -A "$1" "$2" 7<"$3"', Deno.execPath(), driver, profile, held],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      // The last line: the set-up module may print why other tests skip before it.
      const last = text.trim().split("\n").at(-1)!;
      const { own, child } = JSON.parse(last) as { own: string[]; child: string[] };
      assert.ok(own.some((t) => t.endsWith(held.split("/").at(-1)!)), `engram holds it: ${own}`);
      assert.ok(!child.some((t) => t.includes("held-")), `the server holds: ${child.join(", ")}`);
    },
  });
}

Deno.test("stdio process: stderr is kept bounded, latest bytes last", async () => {
  await using dir = await tempDir();
  const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
  const server = await launchable(signer, {
    name: "noisy",
    command: "deno",
    args: ["run", "-A", "--no-config", TREE_SERVER, token()],
  });
  const proc = await startStdioServer(server, { facts, stderrBytes: 1000 });
  const lines = jsonLines(proc.stdout);
  try {
    await lines.next();
    const writer = proc.stdin.getWriter();
    await writer.write(new TextEncoder().encode("stderr 5000\n"));
    await lines.next();
    writer.releaseLock();
    await proc.stop({ graceMs: 2000 });
    const text = proc.stderrText();
    assert.match(text, /^\[\d+ earlier bytes dropped\]\n/);
    assert.ok(text.length < 1100, `kept ${text.length}`);
  } finally {
    await lines.close();
  }
});

Deno.test("stdio process: the stderr tail is exactly the last bytes, across many writes", async () => {
  await using dir = await tempDir();
  const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
  const server = await launchable(signer, {
    name: "chatty",
    command: "deno",
    args: ["run", "-A", "--no-config", TREE_SERVER, token()],
  });
  const proc = await startStdioServer(server, { facts, stderrBytes: 500 });
  const lines = jsonLines(proc.stdout);
  try {
    await lines.next();
    const writer = proc.stdin.getWriter();
    // One write at a time (each answered before the next), so the tail is built from many chunks.
    for (const size of [300, 300, 300, 300]) {
      await writer.write(new TextEncoder().encode(`stderr ${size}\n`));
      await lines.next();
    }
    writer.releaseLock();
    await proc.stop({ graceMs: 2000 });
    // "tree_server: started\n" (21 bytes), then four lines of 300 x: 1225 bytes, 500 kept.
    const all = "tree_server: started\n" + `${"x".repeat(300)}\n`.repeat(4);
    assert.equal(proc.stderrText(), `[725 earlier bytes dropped]\n${all.slice(-500)}`);
  } finally {
    await lines.close();
  }
});

Deno.test("stdio process: a verdict passed in is the one obeyed, and nothing starts when it blocks", async () => {
  await using dir = await tempDir();
  const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
  const mark = token();
  const server = await treeServer("standard", mark);
  const blocked = {
    rule: "enabled",
    ok: false,
    detail: "the server is disabled",
    fix: "enable it",
  };
  await assert.rejects(
    startStdioServer(server, {
      facts,
      verdict: { server: server.name, checks: [blocked], blocked },
    }),
    (err: unknown) => {
      assert.ok(err instanceof EngramError);
      assert.equal(err.code, "forbidden");
      assert.equal(
        err.message,
        'mcp server "tree" is blocked by rule enabled: the server is disabled; enable it',
      );
      return true;
    },
  );
  assert.deepEqual(processesWith(mark), [], "nothing was started");
});

/** This machine's sandbox with pasta around bubblewrap, when both run here. */
const PASTA = BWRAP.ok ? await probeSandbox({ path: Deno.env.get("PATH") }) : BWRAP;

/** The launches the PATH and environment tests make: each profile, and pasta when it runs. */
const LAUNCHES = [
  { profile: "standard", network: false },
  { profile: "restricted", network: false },
  { profile: "restricted", network: true },
] as const;

/** Whether a launch can run here (the networked one needs pasta, or it is bubblewrap alone). */
const launchRuns = (l: (typeof LAUNCHES)[number]) =>
  runs(l.profile) && (!l.network || (PASTA.ok && PASTA.network?.ok === true));

for (const launch of LAUNCHES) {
  const label = `${launch.profile}${launch.network ? ", pasta" : ""}`;
  Deno.test({
    name:
      `stdio process (${label}): a fake bwrap, pasta or command in the sandbox dir on a relative PATH entry never runs`,
    ignore: !launchRuns(launch),
    async fn() {
      await using dir = await tempDir();
      const marker = `${dir.path}/fake-ran`;
      // The server can write its sandbox dir, which is the helpers' working directory.
      const sandboxDir = `${dir.path}/sandboxes/tree`;
      await Deno.mkdir(sandboxDir, { recursive: true });
      for (const name of ["bwrap", "pasta", "deno", "perl"]) {
        await Deno.writeTextFile(
          `${sandboxDir}/${name}`,
          `#!/bin/sh\necho ${name} > '${marker}'\n`,
          {
            mode: 0o755,
          },
        );
      }
      const path = `.::${Deno.env.get("PATH")}`;
      const facts = await testFacts(dir.path, {
        reviewKeys: [signer.reviewKey],
        sandbox: PASTA,
        vars: { PATH: path },
      });
      const server = await launchable(signer, {
        name: "tree",
        command: "deno",
        args: ["run", "-A", "--no-config", TREE_SERVER, token()],
        sandbox_profile: launch.profile,
        network: launch.network,
        ...(launch.profile === "restricted" ? { cwd: UPSTREAM_DIR } : {}),
      });
      const proc = await startStdioServer(server, { facts });
      const lines = jsonLines(proc.stdout);
      try {
        assert.equal((await lines.next()).ready, true, proc.stderrText());
        const writer = proc.stdin.getWriter();
        await writer.write(new TextEncoder().encode("env\n"));
        writer.releaseLock();
        const env = (await lines.next()).result as Record<string, string>;
        assert.equal(env.PATH, path, "the server still gets its own PATH");
      } finally {
        await lines.close();
        await proc.stop({ graceMs: 2000 });
        // Checked last, so a fake that ran (and ended the stream) is what a failure names.
        const ran = await Deno.readTextFile(marker).catch(() => null);
        assert.equal(ran, null, `the fake ${ran?.trim()} ran on the host`);
      }
    },
  });

  Deno.test({
    name:
      `stdio process (${label}): PERL5LIB and PERL5OPT reach the server intact and are never read by the guard`,
    ignore: !launchRuns(launch),
    async fn() {
      await using dir = await tempDir();
      const lib = `${dir.path}/lib`;
      await Deno.mkdir(lib);
      for (const module of ["POSIX", "Evil"]) {
        await Deno.writeTextFile(
          `${lib}/${module}.pm`,
          `open(my $m, ">", "${dir.path}/${module}-loaded"); close $m; 1;\n`,
        );
      }
      const facts = await testFacts(dir.path, {
        reviewKeys: [signer.reviewKey],
        sandbox: PASTA,
        vars: { UPSTREAM_TOKEN: "t-123" },
      });
      const configured = {
        PERL5LIB: lib,
        PERL5OPT: "-MEvil",
        API_TOKEN: "${UPSTREAM_TOKEN}",
        NOTE: "a=b c\nd",
      };
      const server = await launchable(signer, {
        name: "perlenv",
        command: launch.profile === "restricted" ? TEST_DENO : "deno",
        args: ["run", "-A", "--no-config", TREE_SERVER, token()],
        env: configured,
        allow_env: ["PERL5LIB", "PERL5OPT"],
        sandbox_profile: launch.profile,
        network: launch.network,
        ...(launch.profile === "restricted" ? { cwd: UPSTREAM_DIR } : {}),
      });
      const proc = await startStdioServer(server, { facts });
      const lines = jsonLines(proc.stdout);
      try {
        assert.equal((await lines.next()).ready, true, proc.stderrText());
        const writer = proc.stdin.getWriter();
        await writer.write(new TextEncoder().encode("env\n"));
        writer.releaseLock();
        const env = (await lines.next()).result as Record<string, string>;
        assert.deepEqual(env, {
          PATH: Deno.env.get("PATH"),
          HOME: launch.profile === "restricted"
            ? `${dir.path}/sandboxes/perlenv`
            : Deno.env.get("HOME") ?? dir.path,
          LANG: "C.UTF-8",
          ...configured,
          API_TOKEN: "t-123",
          // bubblewrap sets PWD to the directory it changes into.
          ...(launch.profile === "restricted" ? { PWD: UPSTREAM_DIR } : {}),
        });
      } finally {
        await lines.close();
        await proc.stop({ graceMs: 2000 });
        // Checked last, so a module perl loaded (and then died of) is what a failure names.
        for (const module of ["POSIX", "Evil"]) {
          await assert.rejects(
            Deno.lstat(`${dir.path}/${module}-loaded`),
            Deno.errors.NotFound,
            `${module}.pm was loaded on the host`,
          );
        }
      }
    },
  });
}

Deno.test("stdio process: a command gone from PATH since the verdict is not started, and said so", async () => {
  await using dir = await tempDir();
  const facts = await testFacts(dir.path, { reviewKeys: [signer.reviewKey] });
  const server = await launchable(signer, { name: "gone", command: `gone-${token()}` });
  await assert.rejects(
    startStdioServer(server, {
      facts,
      verdict: { server: server.name, checks: [], blocked: null },
    }),
    (err: unknown) => {
      assert.ok(err instanceof EngramError);
      assert.equal(err.code, "not_found");
      assert.equal(
        err.message,
        `mcp server "gone": command ${
          JSON.stringify(server.command)
        } is no longer found on PATH; run engram mcp doctor gone`,
      );
      return true;
    },
  );
});
