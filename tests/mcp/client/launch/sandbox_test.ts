/**
 * The `restricted` sandbox: the bubblewrap probe (and its failure reasons, which are what a
 * machine without bubblewrap shows), then what a server inside can and cannot reach.
 */
import assert from "node:assert/strict";
import { bwrapArgs, probeBubblewrap } from "../../../../src/mcp/client/launch/sandbox.ts";
import {
  startStdioServer,
  type StdioProcess,
} from "../../../../src/mcp/client/launch/stdio_process.ts";
import { ROOT, tempDir } from "../../../helpers.ts";
import {
  BWRAP,
  jsonLines,
  launchable,
  testFacts,
  testSigner,
  token,
  TREE_SERVER,
  UPSTREAM_DIR,
} from "../launch_setup.ts";

const signer = await testSigner();

Deno.test("sandbox probe: bwrap given as a missing path is reported as not installed, with the fix", async () => {
  const probe = await probeBubblewrap({ bwrap: "/nonexistent/bwrap" });
  assert.deepEqual(probe, {
    ok: false,
    reason: 'bubblewrap is not installed ("/nonexistent/bwrap" not found)',
    fix:
      "install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) or set sandbox_profile: standard for this server",
  });
});

Deno.test("sandbox probe: a bwrap that cannot create namespaces is reported with its own words", async () => {
  await using dir = await tempDir();
  const fake = `${dir.path}/bwrap`;
  await Deno.writeTextFile(
    fake,
    "#!/bin/sh\necho 'bwrap: No permissions to create new namespace\x1b[31m' >&2\nexit 1\n",
    { mode: 0o755 },
  );
  const probe = await probeBubblewrap({ bwrap: fake });
  assert.equal(probe.ok, false);
  assert.ok(!probe.ok);
  assert.equal(
    probe.reason,
    'bubblewrap cannot create its namespaces here (exit 1: "bwrap: No permissions to create new namespace[31m")',
    "stderr is data: control characters are dropped",
  );
  assert.match(probe.fix, /unprivileged user namespaces.*or set sandbox_profile: standard/);
});

Deno.test({
  name: "sandbox probe: bubblewrap runs here",
  ignore: !BWRAP.ok,
  async fn() {
    assert.deepEqual(await probeBubblewrap(), { ok: true, bwrap: "bwrap" });
  },
});

Deno.test("sandbox args: network only when allowed, the sandbox dir is the only writable bind", () => {
  const args = bwrapArgs({ sandboxDir: "/d/sandboxes/s", network: false }, {
    command: "npx",
    args: ["-y", "pkg"],
  });
  assert.ok(args.includes("--unshare-all") && args.includes("--die-with-parent"));
  assert.ok(!args.includes("--share-net"));
  assert.deepEqual(args.slice(-4), ["--", "npx", "-y", "pkg"]);
  const writable = args.flatMap((a, i) => (a === "--bind" ? [args[i + 1]] : []));
  assert.deepEqual(writable, ["/d/sandboxes/s"]);
  assert.ok(
    args.indexOf("--tmpfs") < args.indexOf("--bind"),
    "/tmp first: the dir may be under it",
  );
  assert.ok(!args.some((a) => a === "/etc" || a === "/home" || a === "/root"));
  const net = bwrapArgs({ sandboxDir: "/d", cwd: "/srv/x", network: true }, {
    command: "npx",
    args: [],
  });
  assert.ok(net.includes("--share-net"));
  assert.deepEqual(net.slice(net.indexOf("--ro-bind", net.indexOf("--bind")), -2), [
    "--ro-bind",
    "/srv/x",
    "/srv/x",
    "--chdir",
    "/srv/x",
  ]);
});

/** Starts tree_server under restricted and asks it each line; returns the answers. */
async function insideSandbox(
  dataDir: string,
  network: boolean,
  questions: string[],
): Promise<{ answers: unknown[]; proc: StdioProcess }> {
  const facts = await testFacts(dataDir, { reviewKeys: [signer.reviewKey] });
  const server = await launchable(signer, {
    name: "boxed",
    command: "deno",
    args: ["run", "-A", "--no-config", TREE_SERVER, token()],
    sandbox_profile: "restricted",
    cwd: UPSTREAM_DIR,
    network,
  });
  const proc = await startStdioServer(server, { facts });
  const lines = jsonLines(proc.stdout);
  try {
    await lines.next();
    const writer = proc.stdin.getWriter();
    await writer.write(new TextEncoder().encode(questions.map((q) => `${q}\n`).join("")));
    writer.releaseLock();
    const answers = [];
    for (const _ of questions) answers.push((await lines.next()).result);
    return { answers, proc };
  } finally {
    await lines.close();
    await proc.stop({ graceMs: 2000 });
  }
}

Deno.test({
  name: "restricted: read-only system and cwd, writable sandbox dir, no host files, no network",
  ignore: !BWRAP.ok,
  async fn() {
    await using dir = await tempDir();
    const dataDir = `${dir.path}/data`;
    await Deno.mkdir(dataDir);
    await Deno.writeTextFile(`${dataDir}/engram.db`, "not for upstreams");
    using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener.addr.port;
    const sandboxDir = `${dataDir}/sandboxes/boxed`;
    const { answers } = await insideSandbox(dataDir, false, [
      `write ${sandboxDir}/ok.txt`,
      "write /usr/engram-test",
      `write ${UPSTREAM_DIR}/engram-test`,
      `read ${dataDir}/engram.db`,
      `read ${ROOT}deno.json`,
      "read /etc/shadow",
      `connect ${port}`,
      "env",
    ]);
    const [sandboxWrite, usrWrite, cwdWrite, db, repo, shadow, connect, env] = answers;
    assert.equal(sandboxWrite, "ok");
    assert.match(String(usrWrite), /^error:/);
    assert.match(String(cwdWrite), /^error:/);
    assert.equal(db, "error:NotFound", "engram's data dir is not there");
    assert.equal(repo, "error:NotFound", "nor the rest of the host");
    assert.equal(shadow, "error:NotFound");
    assert.match(String(connect), /^error:/, "no network: not even the host's loopback");
    assert.equal((env as Record<string, string>).HOME, sandboxDir);
    assert.equal((env as Record<string, string>).ENGRAM_TOKEN, undefined);
    assert.equal(Deno.readTextFileSync(`${sandboxDir}/ok.txt`), "x");
  },
});

Deno.test({
  name: "restricted with network: true reaches the host's loopback",
  ignore: !BWRAP.ok,
  async fn() {
    await using dir = await tempDir();
    using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const accepted = listener.accept().then((c) => c.close());
    const { answers } = await insideSandbox(`${dir.path}/data`, true, [
      `connect ${listener.addr.port}`,
    ]);
    await accepted;
    assert.deepEqual(answers, ["ok"]);
  },
});
