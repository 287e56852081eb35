/**
 * @module The two paths of `engram mcp review` that review_test.ts does not take, through the real
 * CLI with fixture upstreams as real subprocesses: on a terminal (a pseudo-terminal from util-linux
 * `script`) the operator keeps or changes sandbox, network and cwd, goes on, and picks from the
 * list — each asked once, in order, the choice stored and the pick approved and exposed — and a
 * "no" at the go-on question changes nothing; and an http server, for which steps 1–3 do not
 * apply, is consented, enabled, started and its picks exposed, so an agent on `engram stdio` lists
 * and calls the tool.
 */
import assert from "node:assert/strict";
import { startStreamableHttpUpstream } from "../../fixtures/upstream/http_upstream.ts";
import {
  type CliResult,
  connectStdio,
  engramCommandArgs,
  engramEnv,
  resultText,
  runEngram,
  tempDir,
} from "../../helpers.ts";
import { exists, HAS_SCRIPT, runEngramOnTerminal } from "../_util.ts";
import { FIXTURE } from "../_signed_upstreams.ts";

/** A data dir where `servers` (an `mcpServers` object) were imported; `run` runs `engram mcp …`. */
async function imported(servers: Record<string, unknown>) {
  const dir = await tempDir("engram-review-paths-");
  const run = (args: string[]): Promise<CliResult> =>
    runEngram(["mcp", ...args], { dataDir: dir.path });
  await Deno.writeTextFile(`${dir.path}/claude.json`, JSON.stringify({ mcpServers: servers }));
  const r = await run(["import", "claude.json"]);
  assert.equal(r.code, 0, r.stderr);
  return {
    dir: dir.path,
    run,
    /** `engram mcp …` on a pseudo-terminal, `typed` typed into it; its screen without `\r`. */
    onTerminal: async (args: string[], typed: string) => {
      // Ctrl-D after the answers: a question too many reads the end of input instead of waiting.
      const r = await runEngramOnTerminal(["mcp", ...args], {
        dataDir: dir.path,
        stdin: `${typed}\x04`,
      });
      return { ...r, screen: r.stdout.replaceAll("\r\n", "\n") };
    },
    keyFile: `${dir.path}/xdg-config/engram/engram-review-key.pem`,
    server: async (name: string) =>
      (JSON.parse((await run(["servers", "--json"])).stdout) as Record<string, unknown>[])
        .find((s) => s.name === name)!,
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

/** The questions review asks on a terminal, in the order it asks them. */
const QUESTIONS = [
  "sandbox (restricted|standard) [restricted]: ",
  "network (on|off) [off]: ",
  "cwd (a folder, or - for its own sandbox directory) [-]: ",
  "allowlist and sign this launch, record consent, enable and start files? [y/N] ",
  "approve which (names or globs, separated by spaces; empty: none)? ",
];

/** How often `text` occurs in `screen`. */
function count(screen: string, text: string): number {
  return screen.split(text).length - 1;
}

/** One row of `engram mcp exposure --json`. */
interface Exposed {
  server: string;
  name: string;
  tiers: Record<string, { visible: boolean }>;
}

const FILES = { files: { command: "deno", args: ["run", "-q", FIXTURE("well_behaved")] } };

Deno.test("mcp review on a terminal: asks sandbox, network, cwd, to go on, then the picks, once each, and stores the answers", async () => {
  if (!HAS_SCRIPT) {
    console.log(
      "skipped: util-linux `script` is not installed, so no pseudo-terminal is available",
    );
    return;
  }
  await using s = await imported(FILES);
  // One answer a line, read as each question asks: standard, keep network, keep cwd, yes, echo.
  const r = await s.onTerminal(["review", "files", "--expose", "read"], "standard\n\n\ny\necho\n");
  assert.equal(r.code, 0, r.screen);
  const { screen } = r;
  let at = -1;
  for (const q of QUESTIONS) {
    assert.equal(count(screen, q), 1, `asked once: ${q}\n${screen}`);
    const next = screen.indexOf(q);
    assert.ok(next > at, `${q} comes after the one before it:\n${screen}`);
    at = next;
  }
  // Step 1 comes before the first question; step 2 shows the change; the list before the picks.
  assert.ok(
    screen.indexOf("1. the launch of files (import) as it runs now:") <
      screen.indexOf(QUESTIONS[0]),
  );
  assert.match(screen, /^2\. the launch you chose \(sandbox_profile: restricted → standard\):$/m);
  assert.ok(screen.indexOf("5. what files offers:") < screen.indexOf(QUESTIONS[4]), screen);
  assert.match(screen, /^ {3}approved tool echo \(exposed at read\)$/m);
  assert.match(screen, /^agents now see: mcp_files_echo$/m);

  const server = await s.server("files");
  assert.equal(server.sandbox_profile, "standard");
  assert.equal(server.network, false);
  assert.equal(server.cwd ?? null, null);
  assert.equal(server.enabled, true);
  assert.equal(server.client_consent, "approved");
  assert.equal(server.blocked, null);
  const exposure = await s.run(["exposure", "--json"]);
  assert.equal(exposure.code, 0, exposure.stderr);
  const visible = (JSON.parse(exposure.stdout) as Exposed[])
    .filter((e) => e.server === "files" && e.tiers.read.visible).map((e) => e.name);
  assert.deepEqual(visible, ["echo"], "only the pick, exposed at read");
  // Every step that changed something is one operator action, recorded once.
  const report = JSON.parse((await s.run(["report", "--json"])).stdout);
  const changes: string[] = report.operator_actions
    .filter((a: { command: string }) => a.command === "mcp review")
    .flatMap((a: { changes: string[] }) => a.changes);
  for (
    const expected of [
      "launch sandbox_profile: restricted → standard",
      'added "deno" to its stdio_allowed_commands',
      "client_consent: pending → approved",
      "enabled: false → true",
      "approved tool echo (exposed at read)",
    ]
  ) assert.equal(changes.filter((c) => c === expected).length, 1, `${expected} in ${changes}`);
});

Deno.test("mcp review on a terminal: no at the go-on question changes nothing", async () => {
  if (!HAS_SCRIPT) {
    console.log(
      "skipped: util-linux `script` is not installed, so no pseudo-terminal is available",
    );
    return;
  }
  await using s = await imported(FILES);
  const before = await s.server("files");
  // A wrong answer is said and asked again; then a change, and no at the go-on question.
  const r = await s.onTerminal(
    ["review", "files", "--expose", "read"],
    "none\nstandard\nmaybe\non\n\nno\n",
  );
  assert.equal(r.code, 1, r.screen);
  assert.ok(
    r.screen.includes(
      `${
        QUESTIONS[0]
      }\n"none" is not a sandbox: answer restricted or standard, or nothing to keep restricted\n${
        QUESTIONS[0]
      }\n${
        QUESTIONS[1]
      }\n"maybe" is neither on nor off: answer on or off, or nothing to keep off\n${
        QUESTIONS[1]
      }\n${QUESTIONS[2]}\n`,
    ),
    r.screen,
  );
  assert.match(
    r.screen,
    /^2\. the launch you chose \(sandbox_profile: restricted → standard; network: false → true\):$/m,
  );
  assert.equal(count(r.screen, QUESTIONS[3]), 1, r.screen);
  assert.equal(count(r.screen, QUESTIONS[4]), 0, "no pick is asked");
  assert.match(r.screen, /^nothing changed$/m);
  assert.deepEqual(await s.server("files"), before, "nothing changed");
  assert.equal(await exists(s.keyFile), false, "no key was created");
});

Deno.test("mcp review of an http server: no launch to sign; consent, enable, start, and the pick is exposed to an agent", async () => {
  await using up = await startStreamableHttpUpstream();
  await using s = await imported({ web: { url: up.url } });
  const r = await s.run(["review", "web", "--approve", "echo", "--expose", "read", "--yes"]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(
    r.stdout,
    new RegExp(`^1–3\\. web is reached over http at ${up.url}: nothing to launch or sign$`, "m"),
  );
  assert.match(r.stdout, /^4\. consent approved, enabled, and it started/m);
  assert.match(r.stdout, /^agents now see: mcp_web_echo$/m);
  assert.equal(await exists(s.keyFile), false, "nothing was signed");
  const server = await s.server("web");
  assert.equal(server.enabled, true);
  assert.equal(server.client_consent, "approved");

  await using agent = await connectStdio(s.dir);
  const { tools } = await agent.client.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes("mcp_web_echo"), names.join(", "));
  assert.ok(!names.includes("mcp_web_add"), "only what was approved");
  const result = await agent.client.callTool({
    name: "mcp_web_echo",
    arguments: { text: "over http" },
  });
  assert.equal(result.isError ?? false, false, agent.stderr());
  assert.match(resultText(result), /over http/);
});

Deno.test("mcp review of an http server on a terminal: asks only to go on, and a pick that names nothing is said and asked again", async () => {
  if (!HAS_SCRIPT) {
    console.log(
      "skipped: util-linux `script` is not installed, so no pseudo-terminal is available",
    );
    return;
  }
  await using up = await startStreamableHttpUpstream();
  await using s = await imported({ web: { url: up.url } });
  const r = await s.onTerminal(["review", "web", "--expose", "read"], "y\necko\nech?\n");
  assert.equal(r.code, 0, r.screen);
  const pick = QUESTIONS[4];
  assert.ok(
    r.screen.includes(
      `record consent, enable and start web? [y/N] \n4. consent approved, enabled, and it started`,
    ),
    r.screen,
  );
  assert.doesNotMatch(r.screen, /sandbox \(|network \(|cwd \(|allowlist and sign/, "no launch");
  assert.ok(
    r.screen.includes(
      `${pick}\n"ecko" names nothing web lists (add, bad_output, `,
    ) &&
      r.screen.includes("); pick again, or nothing for none\n" + pick + "\n   approved tool echo"),
    r.screen,
  );
  assert.equal(count(r.screen, pick), 2, r.screen);
  assert.match(r.screen, /^agents now see: mcp_web_echo$/m);
});

Deno.test("mcp review of an http server: off a terminal without --yes nothing changes; one that does not start is left disabled", async () => {
  await using up = await startStreamableHttpUpstream();
  const url = up.url;
  await using s = await imported({ web: { url } });
  const before = await s.server("web");
  const r = await s.run(["review", "web", "--approve", "echo"]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(
    r.stderr,
    "engram: review changes web (records consent, enables and starts it, approves what you pick): off a terminal, pass --yes to go on with the flags given; nothing was changed\n",
  );
  assert.deepEqual(await s.server("web"), before, "nothing changed");

  await up.close();
  const down = await s.run(["review", "web", "--approve", "echo", "--yes"]);
  assert.equal(down.code, 1, down.stderr + down.stdout);
  assert.match(down.stdout, /^4\. web did not start: initialize failed: /m);
  assert.doesNotMatch(down.stdout, /stderr/, "an http server has no stderr to show");
  assert.match(
    down.stdout,
    new RegExp(`^ {3}fix: check the URL and that the server is up: ${url}$`, "m"),
  );
  assert.match(
    down.stdout,
    /^ {3}web is left disabled; run engram mcp review web again with the fix$/m,
  );
  const server = await s.server("web");
  assert.equal(server.enabled, false);
  assert.equal(server.client_consent, "approved");
});

Deno.test("mcp review on a terminal: Ctrl-C at a question ends review at once, changing nothing", async () => {
  if (!HAS_SCRIPT) {
    console.log(
      "skipped: util-linux `script` is not installed, so no pseudo-terminal is available",
    );
    return;
  }
  await using s = await imported(FILES);
  const before = await s.server("files");
  const command = [Deno.execPath(), ...engramCommandArgs(["mcp", "review", "files"])]
    .map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const child = new Deno.Command("script", {
    args: ["-qec", command, "/dev/null"],
    cwd: s.dir,
    env: engramEnv(s.dir),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Wait for the first question, then type Ctrl-C: the terminal turns it into SIGINT.
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let screen = "";
  while (!screen.includes(QUESTIONS[0])) {
    const { value, done } = await reader.read();
    assert.ok(!done, `review ended before asking: ${screen}`);
    screen += value;
  }
  const stdin = child.stdin.getWriter();
  await stdin.write(new TextEncoder().encode("\x03"));
  // A review that ignores the signal would wait on the terminal forever: fail instead of hanging.
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    screen += value;
  }
  await stdin.close().catch(() => {});
  const status = await child.status;
  clearTimeout(guard);
  await child.stderr.cancel();
  assert.match(screen, /interrupted by SIGINT/, screen);
  assert.equal(status.code, 130, screen);
  assert.deepEqual(await s.server("files"), before, "nothing changed");
  assert.equal(await exists(s.keyFile), false, "no key was made");
});
