import assert from "node:assert/strict";
import {
  ceilingFlags,
  launchFlags,
  parseRunList,
  RUN_CEILING,
} from "../../src/config/permissions.ts";
import { compileArgs } from "../../scripts/compile.ts";
import { ROOT, tempDir } from "../helpers.ts";

const PROBE = new URL("../fixtures/spawn_probe.ts", import.meta.url).pathname;

async function probe(mode: string, configYaml: string, commands: string[]) {
  await using dir = await tempDir();
  const configFile = `${dir.path}/engram.yaml`;
  await Deno.writeTextFile(configFile, configYaml);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", ...ceilingFlags(), PROBE, mode, configFile, ...commands],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(out.stdout)) as {
    revoked: string[];
    results: Record<string, string>;
    env: string;
  };
}

Deno.test("stdio mode: Deno refuses to spawn a command outside the allowlist (NotCapable)", async () => {
  const r = await probe("stdio", "mcp:\n  stdio_allowed_commands: [deno]\n", [
    "deno",
    "node",
    "sh",
    "bash",
  ]);
  assert.equal(r.results.deno, "ok", "an allowlisted command still runs");
  // node is in the baked-in ceiling but not in the config allowlist: revoked at start-up.
  assert.equal(r.results.node, "NotCapable");
  // sh and bash were never in the ceiling: Deno refuses them whatever our code decides.
  assert.equal(r.results.sh, "NotCapable");
  assert.equal(r.results.bash, "NotCapable");
  assert.ok(r.revoked.includes("run:node"));
  assert.ok(!r.revoked.includes("run:deno"));
});

Deno.test("stdio mode with no allowlist: every command is refused; at tier read net is dropped", async () => {
  const r = await probe("stdio", "log_level: info\n", ["deno", "node", "npx"]);
  assert.deepEqual(r.results, { deno: "NotCapable", node: "NotCapable", npx: "NotCapable" });
  assert.equal(r.env, "ok", "stdio keeps env: libraries read variables at call time");
  assert.ok(r.revoked.includes("net"));
  assert.ok(r.revoked.includes("read") && r.revoked.includes("write"));
});

Deno.test("stdio mode at tier write keeps net for URL ingestion and read for the client's roots", async () => {
  const r = await probe("stdio", "stdio:\n  tier: write\n", []);
  assert.ok(!r.revoked.includes("net"));
  // No allowed_file_roots, yet the client may share roots that memory_ingest_file reads.
  assert.ok(!r.revoked.includes("read"), JSON.stringify(r.revoked));
  assert.ok(r.revoked.includes("write"));
});

Deno.test("stdio mode with a stdio upstream keeps its launcher plus kill, and bwrap for restricted", async () => {
  const yaml = [
    "mcp:",
    "  mcp_servers:",
    "    - name: s",
    "      transport: stdio",
    "      command: npx",
    "      stdio_allowed_commands: [npx]",
    "",
  ].join("\n");
  const r = await probe("stdio", yaml, ["kill", "node"]);
  assert.equal(r.results.kill, "ok", "kill stops a server's process group");
  assert.equal(r.results.node, "NotCapable");
  for (const kept of ["run:npx", "run:kill", "run:bwrap"]) {
    assert.ok(!r.revoked.includes(kept), kept);
  }
  assert.ok(r.revoked.includes("run:node") && r.revoked.includes("run:docker"));
  const standard = await probe(
    "stdio",
    yaml.replace("npx]", "npx]\n      sandbox_profile: standard"),
    [],
  );
  assert.ok(standard.revoked.includes("run:bwrap"), "no restricted server: no bwrap");
  assert.ok(!standard.revoked.includes("run:kill"));
  assert.ok(r.revoked.includes("run:pasta"), "a restricted server without network: no pasta");
});

Deno.test("stdio and mcp-static modes keep pasta for a restricted server with network: true", async () => {
  const yaml = [
    "mcp:",
    "  mcp_servers:",
    "    - name: s",
    "      transport: stdio",
    "      command: npx",
    "      stdio_allowed_commands: [npx]",
    "      network: true",
    "",
  ].join("\n");
  for (const mode of ["stdio", "mcp-static", "mcp-live"]) {
    const r = await probe(mode, yaml, []);
    for (const kept of ["run:bwrap", "run:pasta"]) {
      assert.ok(!r.revoked.includes(kept), `${mode} keeps ${kept}: ${r.revoked}`);
    }
  }
  const standard = await probe(
    "stdio",
    yaml.replace("network: true", "network: true\n      sandbox_profile: standard"),
    [],
  );
  assert.ok(standard.revoked.includes("run:pasta"), "standard shares the host's network as is");
});

Deno.test("cli mode: run and net are dropped entirely; env is kept for libraries", async () => {
  const r = await probe("cli", "mcp:\n  stdio_allowed_commands: [deno]\n", ["deno"]);
  assert.equal(r.results.deno, "NotCapable");
  assert.equal(r.env, "ok");
  assert.ok(r.revoked.includes("run") && r.revoked.includes("net"));
});

Deno.test("the run ceiling is a list everywhere: compile task and deno.json tasks", async () => {
  const flags = ceilingFlags();
  assert.ok(flags.includes(`--allow-run=${RUN_CEILING.join(",")}`));
  assert.ok(!flags.includes("--allow-run"), "never a bare --allow-run");
  const args = compileArgs("dist/engram");
  assert.ok(args.includes(`--allow-run=${RUN_CEILING.join(",")}`));
  assert.ok(!args.some((a) => a === "--allow-run" || a === "-A" || a === "--allow-all"));
  const manifest = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`)) as {
    tasks: Record<string, string>;
  };
  for (const task of ["stdio", "serve", "engram"]) {
    assert.ok(
      manifest.tasks[task].includes(launchFlags().join(" ")),
      `task ${task} runs with the same flags as the binary: ${launchFlags().join(" ")}`,
    );
  }
  assert.deepEqual(args.slice(2, 2 + launchFlags().length), launchFlags());
  assert.deepEqual(RUN_CEILING, [
    "npx",
    "node",
    "deno",
    "uvx",
    "docker",
    "bwrap",
    "kill",
    "perl",
    "pasta",
  ]);
});

Deno.test("compile --allow-run=a,b bakes another list, still a list", () => {
  const args = compileArgs("dist/engram", { run: parseRunList("npx,bwrap,kill") });
  assert.ok(args.includes("--allow-run=npx,bwrap,kill"));
  assert.ok(!args.some((a) => a === "--allow-run"));
  for (const bad of ["", "npx,,kill", "npx, ", "a=b"]) {
    assert.throws(() => parseRunList(bad), /--allow-run needs a comma-separated list of commands/);
  }
});

Deno.test("mcp-static mode (engram mcp servers) keeps the launchers it judges and bwrap, drops net", async () => {
  const yaml =
    "mcp:\n  stdio_allowed_commands: [deno]\n  mcp_servers:\n    - { name: s, transport: stdio, command: deno }\n";
  const r = await probe("mcp-static", yaml, ["deno", "node", "bwrap"]);
  assert.ok(r.revoked.includes("net"));
  assert.equal(r.results.node, "NotCapable");
  assert.ok(!r.revoked.includes("run:deno") && !r.revoked.includes("run:bwrap"));
});

Deno.test("mcp-live mode (engram mcp doctor) keeps the launchers and net to reach upstreams", async () => {
  const yaml =
    "mcp:\n  stdio_allowed_commands: [deno]\n  mcp_servers:\n    - { name: s, transport: stdio, command: deno }\n";
  const r = await probe("mcp-live", yaml, ["deno", "node"]);
  assert.ok(!r.revoked.includes("net"));
  assert.equal(r.results.deno, "ok");
  assert.equal(r.results.node, "NotCapable");
});
