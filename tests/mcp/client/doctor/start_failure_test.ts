/**
 * @module A server that fails to start: doctor shows the end of its stderr, escaped, and names
 * the common causes with their fix — a name lookup without network, a path the sandbox hides —
 * whether the server exits or hangs until the timeout.
 */
import assert from "node:assert/strict";
import type { McpServerConfig } from "../../../../src/config/mcp_servers.ts";
import { liveDoctor, type LiveReport } from "../../../../src/mcp/client/doctor/doctor_live.ts";
import {
  recogniseStartFailure,
  stderrTail,
} from "../../../../src/mcp/client/doctor/start_failure.ts";
import { BWRAP, launchable, UPSTREAM_DIR } from "../launch_setup.ts";
import { FIXTURES, upstreamWorld } from "../upstream_setup.ts";

const FIXTURE = `${FIXTURES}stderr_failure.ts`;

/** The failing check of a report (the test fails when none failed). */
function failed(report: LiveReport) {
  const check = report.checks.find((c) => c.status === "fail");
  assert.ok(check, JSON.stringify(report));
  return check;
}

Deno.test("doctor: a server that exits shows its stderr's last lines, escaped, and says so", async () => {
  await using world = await upstreamWorld();
  const server = await launchable(world.signer, {
    name: "noisy",
    command: "deno",
    args: ["run", "-q", "--no-config", FIXTURE, "noisy"],
  });
  const [report] = await liveDoctor([server], { facts: world.facts, timeoutMs: 20_000 });
  const check = failed(report);
  assert.equal(check.check, "initialize");
  assert.equal(check.stderr?.length, 12, "only the last lines");
  assert.equal(check.stderr?.[0], "line 20");
  assert.equal(check.stderr?.at(-1), "\\x1b[2Jcleared\\u202eevil", "escapes and bidi shown");
  assert.equal(
    check.fix,
    "run the server's command by hand to see why it does not answer initialize; the end of its stderr is below",
  );
});

Deno.test("doctor: a server that hangs after a failed lookup shows its stderr and the DNS cause", async () => {
  await using world = await upstreamWorld();
  const server = await launchable(world.signer, {
    name: "offline",
    command: "deno",
    args: ["run", "-q", "--no-config", FIXTURE, "dns", "--hang"],
  });
  const [report] = await liveDoctor([server], { facts: world.facts, timeoutMs: 3000 });
  const check = failed(report);
  assert.equal(check.check, "initialize");
  assert.match(check.detail, /did not answer initialize within 3000 ms/, check.detail);
  assert.match(check.detail, /; it could not resolve a host name$/);
  assert.equal(
    check.stderr?.at(-1),
    "npm error request to https://registry.npmjs.org/@modelcontextprotocol%2fserver-everything failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
    "stderr of a process that never exited, too",
  );
  assert.equal(
    check.fix,
    "check this machine's DNS and network, and that the server's host names are right",
    "standard profile: the host's network is its own",
  );
});

/** A fixture run under restricted, with its read-only cwd where the fixture lives. */
async function restricted(
  world: Awaited<ReturnType<typeof upstreamWorld>>,
  name: string,
  kind: string,
): Promise<McpServerConfig> {
  return await launchable(world.signer, {
    name,
    command: "deno",
    args: ["run", "-q", "--no-config", FIXTURE, kind],
    sandbox_profile: "restricted",
    cwd: UPSTREAM_DIR,
  });
}

Deno.test({
  name: "doctor: under restricted without network, a failed lookup points at --network",
  ignore: !BWRAP.ok,
  async fn() {
    await using world = await upstreamWorld();
    const servers = [
      await restricted(world, "npmish", "dns"),
      await restricted(world, "script", "path"),
    ];
    const reports = await liveDoctor(servers, { facts: world.facts, timeoutMs: 20_000 });
    const dns = failed(reports[0]);
    assert.match(dns.detail, /its sandbox has no network \(network: false\)$/);
    assert.equal(
      dns.fix,
      "give it network (set network: true, or: engram mcp review npmish --network), or prefetch what it downloads",
    );
    const path = failed(reports[1]);
    assert.match(
      path.detail,
      /could not find a file or module \(\/home\/someone\/mcp\/server\.js\): the restricted sandbox shows only/,
    );
    assert.equal(
      path.fix,
      "set cwd to the directory holding it (engram mcp review script --cwd DIR), or run it outside the sandbox (engram mcp review script --sandbox standard)",
    );
    assert.ok(path.stderr?.includes("Error: Cannot find module '/home/someone/mcp/server.js'"));
  },
});

Deno.test("start failure: the causes each tool words, and none for other text", () => {
  const boxed = { name: "s", transport: "stdio", sandbox_profile: "restricted", network: false };
  for (
    const text of [
      "npm ERR! code ENOTFOUND\nnpm ERR! network request to https://registry.npmjs.org/x failed",
      "error: Import 'https://deno.land/x/y.ts' failed: dns error: failed to lookup address information: Temporary failure in name resolution",
      "error: Failed to fetch: `https://pypi.org/simple/mcp-server/`\n  Caused by: dns error: Name or service not known",
      "curl: (6) Could not resolve host: example.com",
    ]
  ) {
    assert.equal(recogniseStartFailure(text, boxed)?.cause, "dns", text);
  }
  assert.match(
    recogniseStartFailure("getaddrinfo ENOTFOUND x", { ...boxed, network: true })?.fix ?? "",
    /^check this machine's DNS/,
    "network already on: the host's DNS is what to check",
  );
  for (
    const [text, path] of [
      ['error: Module not found "file:///home/me/srv/main.ts".', "/home/me/srv/main.ts"],
      [
        "python3: can't open file '/root/mcp/server.py': [Errno 2] No such file or directory",
        "/root/mcp/server.py",
      ],
      [
        "Error: ENOENT: no such file or directory, open '/home/me/.config/srv.json'",
        "/home/me/.config/srv.json",
      ],
    ]
  ) {
    const cause = recogniseStartFailure(text, boxed);
    assert.equal(cause?.cause, "hidden_path", text);
    assert.ok(cause?.detail.includes(`(${path})`), cause?.detail);
  }
  assert.equal(
    recogniseStartFailure("Error: Cannot find module '/x.js'", {
      ...boxed,
      sandbox_profile: "standard",
    }),
    null,
    "outside the sandbox a missing file is just missing",
  );
  assert.equal(recogniseStartFailure("TypeError: x is not a function", boxed), null);
  assert.equal(
    recogniseStartFailure("getaddrinfo ENOTFOUND", { ...boxed, transport: "http" }),
    null,
  );
});

Deno.test("start failure: the stderr tail drops blank lines, bounds each line, escapes controls", () => {
  assert.deepEqual(stderrTail(""), []);
  assert.deepEqual(stderrTail("a\n\n  \nb\x07\n"), ["a", "b\\x07"]);
  const long = stderrTail("y".repeat(1000))[0];
  assert.equal(long.length, 300);
  assert.ok(long.endsWith("…"));
  assert.deepEqual(stderrTail("1\n2\n3", 2), ["2", "3"]);
});
