/**
 * @module `engram mcp discover | call | read-resource | doctor` against real fixture upstreams:
 * listings with approval states, results printed safely (control characters shown, `--json`
 * exact), the error paths a user hits, a crashing and a hanging upstream, and doctor naming the
 * sick server among healthy ones.
 */
import assert from "node:assert/strict";
import { engramCommandArgs, engramEnv, tempDir } from "../../helpers.ts";
import { processesWith, token } from "../../mcp/client/launch_setup.ts";
import { leftovers } from "../../mcp/client/upstream_setup.ts";
import { upstreamSetup } from "../_signed_upstreams.ts";
import { assertFails } from "../_util.ts";

const WELL = { name: "files", fixture: "well_behaved" };

Deno.test("discover lists tools, resources, templates and prompts with approval states; --json is exact", async () => {
  await using s = await upstreamSetup([WELL]);
  const text = await s.run(["discover", "files"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^files: well-behaved 1\.0\.0, protocol 2025-11-25/);
  assert.match(
    text.stdout,
    /tools \(\d+\):\nname\s+approval\s+description\necho\s+pending\s+Echoes/,
  );
  assert.match(text.stdout, /fixture:\/\/text\/hello\s+hello\s+text\/plain/);
  assert.match(text.stdout, /fixture:\/\/notes\/\{name\}\s+notes\s+pending/);
  assert.match(text.stdout, /greet\s+pending/);
  const json = JSON.parse((await s.run(["discover", "files", "--json"])).stdout);
  const echo = json.tools.find((t: { name: string }) => t.name === "echo");
  assert.deepEqual(echo.approval, { state: "pending" });
  assert.deepEqual(echo.inputSchema.required, ["text"]);
  const unknown = await s.run(["discover", "nope"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /not_found: no upstream server named "nope".*engram mcp servers/);
});

Deno.test("call: upstream text is shown with control characters escaped; --json keeps it exact", async () => {
  await using s = await upstreamSetup([WELL]);
  const shown = await s.run(["call", "files", "control_chars", "--unapproved"]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.ok(!shown.stdout.includes("\x1b"), "no raw escape reaches the terminal");
  assert.match(shown.stdout, /\\x1b\[31m/);
  const exact = await s.run(["call", "files", "control_chars", "--unapproved", "--json"]);
  const result = JSON.parse(exact.stdout);
  assert.ok(result.content[0].text.includes("\x1b["), "--json carries the text byte for byte");
});

Deno.test("call errors: unapproved, unknown tool with nearest names, bad --args with its position, --args-file", async () => {
  await using s = await upstreamSetup([WELL]);
  const unapproved = await s.run(["call", "files", "echo", "--args", '{"text":"x"}']);
  assert.equal(unapproved.code, 1);
  assert.match(unapproved.stderr, /forbidden: upstream files tool echo is not approved; review it/);
  const typo = await s.run(["call", "files", "ecoh", "--unapproved"]);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, /not_found: upstream files has no tool "ecoh"; nearest: echo/);
  const bad = await s.run(["call", "files", "echo", "--args", '{"text": }']);
  assert.equal(bad.code, 2);
  assert.match(
    bad.stderr,
    /--args is not JSON: a value was expected at position 9 \(line 1, column 10\)/,
  );
  const notObject = await s.run(["call", "files", "echo", "--args", "[1]"]);
  assert.equal(notObject.code, 2);
  assert.match(notObject.stderr, /--args must be a JSON object/);
  await Deno.writeTextFile(`${s.dir}/args.json`, '{"text": "from a file"}');
  const fromFile = await s.run([
    "call",
    "files",
    "echo",
    "--args-file",
    "args.json",
    "--unapproved",
  ]);
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.equal(fromFile.stdout.trim(), "echo: from a file");
  const failing = await s.run([
    "call",
    "files",
    "fail",
    "--unapproved",
    "--args",
    '{"mode":"result"}',
  ]);
  assert.equal(failing.code, 1, "an error result exits 1");
  assert.match(failing.stderr, /returned an error result/);
});

Deno.test("call: --args with --args-file, and an --args-file that cannot be read, are usage errors", async () => {
  await using s = await upstreamSetup([WELL]);
  await Deno.writeTextFile(`${s.dir}/args.json`, '{"text": "x"}');
  assertFails(
    await s.run(["call", "files", "echo", "--args", "{}", "--args-file", "args.json"]),
    2,
    "engram: give --args or --args-file, not both; see: engram mcp call --help\n",
  );
  assertFails(
    await s.run(["call", "files", "echo", "--args-file", "missing.json", "--unapproved"]),
    2,
    new RegExp(`^engram: cannot read --args-file ${s.dir}/missing\\.json: No such file`),
  );
  await Deno.mkdir(`${s.dir}/adir`);
  assertFails(
    await s.run(["call", "files", "echo", "--args-file", "adir", "--unapproved"]),
    2,
    new RegExp(`^engram: cannot read --args-file ${s.dir}/adir: .+`),
  );
});

Deno.test("read-resource prints text, describes binary, and --json gives it exactly", async () => {
  await using s = await upstreamSetup([WELL]);
  const textual = await s.run(["read-resource", "files", "fixture://text/hello"]);
  assert.equal(textual.code, 0, textual.stderr);
  assert.equal(textual.stdout, "hello from the well-behaved upstream\n");
  const binary = await s.run(["read-resource", "files", "fixture://blob/bytes.bin"]);
  assert.match(
    binary.stdout,
    /^\[application\/octet-stream content of fixture:\/\/blob\/bytes\.bin, 256 bytes; use --json/,
  );
  const json = JSON.parse(
    (await s.run(["read-resource", "files", "fixture://blob/bytes.bin", "--json"])).stdout,
  );
  assert.equal(typeof json.contents[0].blob, "string");
  assertFails(
    await s.run(["read-resource", "files", "fixture://nope"]),
    1,
    'engram: not_found: upstream "files" has no such resource: Resource not found: fixture://nope\n',
  );
});

Deno.test("a crashing upstream and a hanging one are clear errors within the timeout", async () => {
  await using s = await upstreamSetup([
    { name: "crashy", fixture: "crashing", args: ["--exit-code", "3"] },
    { name: "stuck", fixture: "hanging" },
  ]);
  const crash = await s.run(["call", "crashy", "crash", "--unapproved"]);
  assert.equal(crash.code, 1);
  assert.match(crash.stderr, /upstream "crashy" crashed mid-call \(exit code 3\)/);
  await Deno.writeTextFile(
    `${s.dir}/config/engram.yaml`,
    (await Deno.readTextFile(`${s.dir}/config/engram.yaml`)).replace(
      "request_timeout_ms: 10000",
      "request_timeout_ms: 1500",
    ),
  );
  const started = Date.now();
  const hung = await s.run(["call", "stuck", "wait_forever", "--unapproved"]);
  assert.equal(hung.code, 1);
  assert.equal(
    hung.stderr,
    'engram: provider_unavailable: upstream "stuck" did not answer tools/call "wait_forever" within 1500 ms, so engram cancelled it; if it needs longer, raise its request_timeout_ms (engram mcp set stuck request_timeout_ms=MS, or in its config entry) within mcp.request_timeout_ms, or check it with: engram mcp doctor stuck\n',
  );
  assert.ok(Date.now() - started < 10_000, "bounded by the request timeout");
});

Deno.test("doctor runs the live checks of every server at once and names the sick one", async () => {
  await using s = await upstreamSetup([
    WELL,
    { name: "dead", fixture: "crashing", args: ["--when", "initialize"] },
    { name: "also_ok", fixture: "well_behaved", args: ["--name", "second"] },
  ]);
  const r = await s.run(["doctor", "--json"]);
  assert.equal(r.code, 1);
  const report = JSON.parse(r.stdout);
  const byName = Object.fromEntries(
    report.servers.map((x: { name: string; checks: { rule: string; result: string }[] }) => [
      x.name,
      Object.fromEntries(x.checks.map((c) => [c.rule, c.result])),
    ]),
  );
  for (const ok of ["files", "also_ok"]) {
    assert.equal(byName[ok].initialize, "PASS", ok);
    assert.equal(byName[ok].latency, "PASS", ok);
  }
  assert.equal(byName.dead.initialize, "FAIL");
  const text = await s.run(["doctor", "dead"]);
  assert.match(text.stdout, /FAIL initialize\s+.*\n\s+fix: /);
  const quick = await s.run(["doctor", "--static", "dead"]);
  assert.equal(quick.code, 0, "the static checks of a well-configured server pass");
});

/** The lines of `file` once one starts with `prefix`; fails if `exited` settles first. */
async function lineAppears(file: string, prefix: string, exited: Promise<unknown>) {
  let done = false;
  void exited.then(() => (done = true));
  for (;;) {
    const lines = (await Deno.readTextFile(file).catch(() => "")).split("\n");
    if (lines.some((l) => l.startsWith(prefix))) return lines;
    if (done) throw new Error(`the command ended before ${JSON.stringify(prefix)}: ${lines}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`call: ${signal} cancels the call upstream and leaves no server process`, async () => {
    await using record = await tempDir();
    const file = `${record.path}/record.txt`;
    const mark = token();
    await using s = await upstreamSetup([{
      name: "files",
      fixture: "well_behaved",
      allow: [`--allow-write=${file}`],
      args: ["--name", `wb-${mark}`, "--record", file],
    }]);
    const child = new Deno.Command(Deno.execPath(), {
      args: engramCommandArgs([
        "mcp",
        "call",
        "files",
        "slow",
        "--args",
        '{"ms":600000}',
        "--unapproved",
      ]),
      cwd: s.dir,
      env: engramEnv(s.dir),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const output = child.output();
    const started = await lineAppears(file, "slow ", output);
    const pid = Number(started.find((l) => l.startsWith("started "))!.split(" ")[1]);
    assert.deepEqual(processesWith(`wb-${mark}`), [pid], "the server runs the call");
    child.kill(signal);
    const out = await output;
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, signal === "SIGINT" ? 130 : 143, stderr);
    assert.match(stderr, new RegExp(`interrupted by ${signal}: what was in flight was cancelled`));
    const seen = (await Deno.readTextFile(file)).split("\n");
    const id = started.find((l) => l.startsWith("slow "))!.split(" ")[1];
    assert.ok(
      seen.includes(`cancelled ${id} engram was interrupted (${signal})`),
      `the upstream saw the cancellation: ${seen.join(" | ")}`,
    );
    // engram waited for the server's process group before it exited.
    assert.deepEqual(processesWith(`wb-${mark}`), []);
    assert.deepEqual(leftovers([pid]), [], "reaped, not a zombie");
  });
}
