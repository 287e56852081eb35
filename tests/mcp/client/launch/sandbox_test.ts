/**
 * The `restricted` sandbox: the bubblewrap probe (and its failure reasons, which are what a
 * machine without bubblewrap shows), then what a server inside can and cannot reach.
 */
import assert from "node:assert/strict";
import { loopbackWarning } from "../../../../src/mcp/client/launch/server_status.ts";
import {
  bwrapArgs,
  probeBubblewrap,
  probeSandbox,
  sandboxLaunch,
  type SandboxProbe,
} from "../../../../src/mcp/client/launch/sandbox.ts";
import {
  DNS_FORWARD_ADDRESS,
  type NetworkProbe,
  probePasta,
  sandboxResolvConf,
} from "../../../../src/mcp/client/launch/sandbox_network.ts";
import {
  startStdioServer,
  type StdioProcess,
} from "../../../../src/mcp/client/launch/stdio_process.ts";
import { ROOT, tempDir } from "../../../helpers.ts";
import {
  BWRAP,
  DENO_HIDDEN,
  jsonLines,
  launchable,
  TEST_DENO,
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
  name: "sandbox probe: bubblewrap runs here, and the probe answers with its absolute path",
  ignore: !BWRAP.ok,
  async fn() {
    const probe = await probeBubblewrap();
    assert.ok(probe.ok);
    assert.match(probe.bwrap, /^\/.+\/bwrap$/, "what every launch runs: never a bare name");
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
  assert.equal(args[args.indexOf("--chdir") - 1], "--clearenv", "no environment but the given one");
  const writable = args.flatMap((a, i) => (a === "--bind" ? [args[i + 1]] : []));
  assert.deepEqual(writable, ["/d/sandboxes/s"]);
  assert.ok(
    args.indexOf("--tmpfs") < args.indexOf("--bind"),
    "/tmp first: the dir may be under it",
  );
  assert.ok(!args.some((a) => a === "/etc" || a === "/home" || a === "/root"));
  const net = bwrapArgs({ sandboxDir: "/d", cwd: "/srv/x", network: true }, {
    command: "/usr/bin/npx",
    args: [],
    env: { PATH: "/usr/bin", NOTE: "a=b c\nd" },
  });
  assert.ok(net.includes("--share-net"));
  // cwd before the sandbox dir: the later bind wins, so cwd can never cover the writable dir.
  assert.deepEqual(net.slice(net.indexOf("--ro-bind", net.indexOf("--tmpfs")), -2), [
    "--ro-bind",
    "/srv/x",
    "/srv/x",
    "--bind",
    "/d",
    "/d",
    "--clearenv",
    "--setenv",
    "PATH",
    "/usr/bin",
    "--setenv",
    "NOTE",
    "a=b c\nd",
    "--chdir",
    "/srv/x",
  ]);
});

Deno.test({
  name: "restricted: a cwd above the sandbox dir does not hide the server's own writable dir",
  ignore: !BWRAP.ok,
  async fn() {
    await using dir = await tempDir();
    const sandboxDir = `${dir.path}/sandboxes/s`;
    await Deno.mkdir(sandboxDir, { recursive: true });
    const probe = BWRAP as Extract<SandboxProbe, { ok: true }>;
    const args = bwrapArgs({ sandboxDir, cwd: `${dir.path}/sandboxes`, network: false }, {
      command: "/bin/sh",
      args: ["-c", `echo x > '${sandboxDir}/written'`],
      env: { PATH: "/usr/bin:/bin" },
    });
    const out = await new Deno.Command(probe.bwrap, { args, stderr: "piped" }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(await Deno.readTextFile(`${sandboxDir}/written`), "x\n");
  },
});

/** Starts tree_server under restricted and asks it each line; returns the answers. */
async function insideSandbox(
  dataDir: string,
  network: boolean,
  questions: string[],
  sandbox?: SandboxProbe,
): Promise<{ answers: unknown[]; proc: StdioProcess }> {
  const facts = await testFacts(dataDir, { reviewKeys: [signer.reviewKey], sandbox });
  const server = await launchable(signer, {
    name: "boxed",
    command: TEST_DENO,
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
  ignore: !BWRAP.ok || DENO_HIDDEN !== null,
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
  name: "restricted with network: true and no pasta shares the host's network, loopback included",
  ignore: !BWRAP.ok || DENO_HIDDEN !== null,
  async fn() {
    await using dir = await tempDir();
    using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const accepted = listener.accept().then((c) => c.close());
    const withoutPasta: SandboxProbe = {
      ...(BWRAP as Extract<SandboxProbe, { ok: true }>),
      network: { ok: false, reason: 'passt is not installed ("pasta" not found)', fix: "x" },
    };
    const { answers } = await insideSandbox(
      `${dir.path}/data`,
      true,
      [`connect ${listener.addr.port}`],
      withoutPasta,
    );
    await accepted;
    assert.deepEqual(answers, ["ok"], "today's behaviour where pasta cannot be had");
    const server = { name: "boxed", transport: "stdio", sandbox_profile: "restricted" };
    assert.equal(
      loopbackWarning({ ...server, network: true }, withoutPasta),
      `boxed has network: true and shares the host's network (passt is not installed ("pasta" not found)), so it can reach every service on the host's loopback, engram's own HTTP port included; fix: x`,
    );
  },
});

/** This machine's sandbox with pasta, probed once; tests that need it say why they skip. */
const PASTA: SandboxProbe = BWRAP.ok ? await probeSandbox({ path: Deno.env.get("PATH") }) : BWRAP;
const pastaReady = PASTA.ok && PASTA.network?.ok === true;
if (BWRAP.ok && PASTA.ok && !PASTA.network?.ok) {
  console.log(`skipping pasta tests: ${PASTA.network?.reason}`);
}

Deno.test({
  name: "restricted with network: true behind pasta cannot reach the host's loopback",
  ignore: !pastaReady || DENO_HIDDEN !== null,
  async fn() {
    await using dir = await tempDir();
    using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    // The listener takes whatever arrives, so a connection that got through is seen, not lost.
    const accepted = listener.accept().then((c) => (c.close(), "accepted"), () => "closed");
    const { answers } = await insideSandbox(
      `${dir.path}/data`,
      true,
      [`connect ${listener.addr.port}`, "env"],
      PASTA,
    );
    assert.match(String(answers[0]), /^error:/, "the host's 127.0.0.1 is not the sandbox's");
    listener.close();
    assert.equal(await accepted, "closed", "nothing reached the host's listener");
    assert.equal(
      loopbackWarning(
        { name: "boxed", transport: "stdio", sandbox_profile: "restricted", network: true },
        PASTA,
      ),
      null,
    );
  },
});

Deno.test("sandbox launch: pasta wraps bubblewrap only for network, with nothing of the host's loopback", async () => {
  await using dir = await tempDir();
  const sandboxDir = `${dir.path}/sandboxes/s`;
  await Deno.mkdir(sandboxDir, { recursive: true });
  const network: NetworkProbe = {
    ok: true,
    pasta: "/usr/bin/pasta",
    args: ["-f", "-T", "none", "--dns-forward", DNS_FORWARD_ADDRESS],
    resolvConf: `nameserver ${DNS_FORWARD_ADDRESS}\nsearch lan\n`,
  };
  const sandbox = { ok: true as const, bwrap: "/usr/bin/bwrap", network };
  const run = { command: "npx", args: ["-y", "pkg"] };
  const offline = await sandboxLaunch(sandbox, { sandboxDir, network: false }, run);
  assert.equal(offline.program, "/usr/bin/bwrap", "no network: no pasta");
  assert.ok(!offline.args.includes("--share-net"));

  const online = await sandboxLaunch(sandbox, { sandboxDir, network: true }, run);
  assert.equal(online.program, "/usr/bin/pasta");
  const split = online.args.indexOf("--");
  assert.deepEqual(online.args.slice(0, split), network.args);
  assert.equal(online.args[split + 1], "/usr/bin/bwrap");
  const inner = online.args.slice(split + 2);
  assert.ok(inner.includes("--share-net"), "bubblewrap shares pasta's namespace, not the host's");
  const owner = Deno.statSync(sandboxDir);
  assert.deepEqual(inner.slice(inner.indexOf("--uid"), inner.indexOf("--uid") + 4), [
    "--uid",
    String(owner.uid),
    "--gid",
    String(owner.gid),
  ]);
  const resolv = `${dir.path}/sandboxes/resolv.conf`;
  const bind = inner.lastIndexOf("/etc/resolv.conf");
  assert.deepEqual(inner.slice(bind - 2, bind + 1), ["--ro-bind", resolv, "/etc/resolv.conf"]);
  assert.ok(bind > inner.indexOf("--ro-bind-try"), "after the host's resolv.conf: it wins");
  assert.equal(await Deno.readTextFile(resolv), network.resolvConf);
  assert.deepEqual(inner.slice(-4), ["--", "npx", "-y", "pkg"]);

  const noDns = await sandboxLaunch(
    { ...sandbox, network: { ...network, resolvConf: null } },
    { sandboxDir, network: true },
    run,
  );
  assert.ok(
    !noDns.args.includes("/etc/resolv.conf") || noDns.args.indexOf("/etc/resolv.conf") <
        noDns.args.indexOf("--uid"),
    "only the host's own resolv.conf",
  );

  const unusable = await sandboxLaunch(
    { ...sandbox, network: { ok: false, reason: "r", fix: "f" } },
    { sandboxDir, network: true },
    run,
  );
  assert.equal(unusable.program, "/usr/bin/bwrap", "without pasta: today's shared network");
  assert.ok(unusable.args.includes("--share-net"));
});

Deno.test({
  name: "pasta probe: the real run carries no port forwarding and no gateway mapping",
  ignore: !pastaReady,
  fn() {
    const net = (PASTA as { network: Extract<NetworkProbe, { ok: true }> }).network;
    for (const [flag, value] of [["-t", "none"], ["-u", "none"], ["-T", "none"], ["-U", "none"]]) {
      assert.equal(net.args[net.args.indexOf(flag) + 1], value, flag);
    }
    assert.ok(net.args.includes("--no-map-gw") && net.args.includes("--config-net"));
  },
});

Deno.test("pasta probe: a missing pasta, or one that fails, is reported with the fix", async () => {
  const inner = ["true"];
  const missing = await probePasta(inner, { pasta: "/nonexistent/pasta", resolvText: "" });
  assert.deepEqual(missing, {
    ok: false,
    reason: 'passt is not installed ("/nonexistent/pasta" not found)',
    fix:
      "install passt (Debian/Ubuntu: apt-get install passt; Fedora: dnf install passt) to give it a network of its own, or set network: false",
  });
  await using dir = await tempDir();
  const fake = `${dir.path}/pasta`;
  await Deno.writeTextFile(
    fake,
    `#!/bin/sh\ncase "$*" in *--runas*) echo "Can't set GID to 0: Operation not permitted" >&2;;\n*) echo 'Failed to open tun socket in namespace\x1b[2J' >&2;; esac\nexit 1\n`,
    { mode: 0o755 },
  );
  const failing = await probePasta(inner, { pasta: fake, resolvText: "" });
  assert.ok(!failing.ok);
  assert.equal(
    failing.reason,
    'pasta cannot give a sandbox its own network here (exit 1: "Failed to open tun socket in namespace[2J")',
    "the form that counts for a non-root user is reported; control characters dropped",
  );
});

Deno.test("sandbox resolv.conf: only a loopback resolver is forwarded; search and options kept", () => {
  assert.equal(sandboxResolvConf("nameserver 10.0.0.53\n"), null);
  assert.equal(sandboxResolvConf("# none\n"), null);
  assert.equal(sandboxResolvConf("nameserver 192.168.1.1\nnameserver 127.0.0.53\n"), null);
  assert.equal(
    sandboxResolvConf("# by resolved\nnameserver 127.0.0.53\noptions edns0 trust-ad\nsearch lan\n"),
    `nameserver ${DNS_FORWARD_ADDRESS}\n# by resolved\noptions edns0 trust-ad\nsearch lan\n`,
  );
  assert.match(sandboxResolvConf("nameserver ::1\n") ?? "", /^nameserver 169\.254\.1\.1\n$/);
});

Deno.test("loopback warning: only a restricted stdio server with network and no pasta", () => {
  const noPasta: SandboxProbe = {
    ok: true,
    bwrap: "bwrap",
    network: { ok: false, reason: "r", fix: "f" },
  };
  const base = { name: "s", transport: "stdio", sandbox_profile: "restricted", network: true };
  assert.match(loopbackWarning(base, noPasta) ?? "", /^s has network: true .*loopback.*fix: f$/);
  assert.equal(loopbackWarning({ ...base, network: false }, noPasta), null);
  assert.equal(loopbackWarning({ ...base, sandbox_profile: "standard" }, noPasta), null);
  assert.equal(loopbackWarning({ ...base, transport: "http" }, noPasta), null);
  assert.equal(
    loopbackWarning(base, {
      ...noPasta,
      network: { ok: true, pasta: "p", args: [], resolvConf: null },
    }),
    null,
  );
});
