/**
 * @module What `engram mcp doctor` and `servers` say through the real CLI about a server that does
 * not start (the end of its stderr, escaped, and the recognised cause) and about a restricted
 * server with `network: true`: its own network through pasta, or a warning that it can reach the
 * host's loopback where pasta cannot be had.
 */
import assert from "node:assert/strict";
import { tempDir } from "../../helpers.ts";
import { BWRAP } from "../../mcp/client/launch_setup.ts";
import { configSetup, upstreamSetup } from "../_signed_upstreams.ts";

Deno.test("doctor: a server that fails to start shows the end of its stderr and the fix", async () => {
  await using s = await upstreamSetup([
    { name: "script", fixture: "stderr_failure", args: ["noisy"] },
  ]);
  const text = await s.run(["doctor", "script"]);
  assert.equal(text.code, 1, text.stderr);
  assert.match(text.stdout, /FAIL initialize\s+upstream "script" crashed during initialize/);
  assert.match(
    text.stdout,
    /fix: run the server's command by hand .*the end of its stderr is below/,
  );
  assert.match(text.stdout, /its stderr ends with:\n\s+\| line 20\n/);
  assert.match(text.stdout, /\| \\x1b\[2Jcleared\\u202eevil\n/, "escaped, never raw");
  assert.ok(!text.stdout.includes("\x1b"), "no terminal escape reaches the terminal");
  const json = await s.run(["doctor", "script", "--json"]);
  const check = JSON.parse(json.stdout).servers[0].checks.find((c: { rule: string }) =>
    c.rule === "initialize"
  );
  assert.equal(check.stderr.length, 12);
});

const NETWORKED = `mcp:
  stdio_allowed_commands: [deno]
  mcp_servers:
    - name: net
      transport: stdio
      command: deno
      args: ["run", "-q", "server.ts"]
      sandbox_profile: restricted
      network: true
      client_consent: approved
`;

Deno.test({
  name:
    "servers and doctor: without pasta, a restricted server with network is said to reach the host's loopback",
  ignore: !BWRAP.ok,
  async fn() {
    await using s = await configSetup(NETWORKED);
    // A PATH with bubblewrap and deno but no pasta: what a machine without passt shows.
    await using bin = await tempDir();
    await Deno.symlink("/usr/bin/bwrap", `${bin.path}/bwrap`);
    await Deno.symlink(Deno.execPath(), `${bin.path}/deno`);
    const env = { PATH: bin.path };
    const warning =
      `net has network: true and shares the host's network (passt is not installed ("pasta" not found)), so it can reach every service on the host's loopback, engram's own HTTP port included; fix: install passt`;
    const text = await s.run(["servers"], env);
    assert.equal(text.code, 0, text.stderr);
    assert.ok(text.stdout.includes(`\nwarning: ${warning}`), text.stdout);
    const json = await s.run(["servers", "--json"], env);
    assert.ok(JSON.parse(json.stdout)[0].loopback_warning.startsWith(warning));
    const doctor = await s.run(["doctor", "net", "--static"], env);
    assert.ok(doctor.stdout.includes(`\n  warning: ${warning}`), doctor.stdout);
  },
});

Deno.test({
  name:
    "servers and doctor: with pasta, a restricted server with network gets a network of its own",
  ignore: !BWRAP.ok,
  async fn() {
    await using s = await configSetup(NETWORKED);
    const json = await s.run(["servers", "--json"]);
    const [server] = JSON.parse(json.stdout);
    const doctor = await s.run(["doctor", "net", "--static"]);
    if (server.loopback_warning !== null) {
      console.log(`skipping the pasta case of doctor: ${server.loopback_warning}`);
      return;
    }
    assert.match(
      doctor.stdout,
      /PASS sandbox\s+bubblewrap runs here .*network of its own through pasta, without the host's loopback/,
    );
    const text = await s.run(["servers"]);
    assert.ok(!text.stdout.includes("warning:"), text.stdout);
  },
});
