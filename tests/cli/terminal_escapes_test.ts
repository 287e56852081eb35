import assert from "node:assert/strict";
import { ROOT, runEngram, tempDir } from "../helpers.ts";
import { assertOk, runJson, writeText } from "./_util.ts";

/** Raw ESC, BEL, any other C0 but newline/tab, DEL, C1 or a bidi override/isolate. */
// deno-lint-ignore no-control-regex
const RAW_ACTIVE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

const TITLE = "Kite \x1b[31mred\x1b[0m title";
const BODY =
  "kites report \x1b[6n then \x1b]8;;http://x\x07link\x1b]8;;\x07 then \x9b2J then \u202e done";
const NOTE = `# ${TITLE}\n\n${BODY}\n`;

Deno.test("engram search: stored escape sequences are shown as visible text, never sent raw", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "evil.md", NOTE);
  assertOk(await runEngram(["remember", file], { dataDir: dir.path }));
  const r = await runEngram(["search", "kites"], { dataDir: dir.path, env: { NO_COLOR: "" } });
  assertOk(r);
  assert.doesNotMatch(r.stdout, RAW_ACTIVE, JSON.stringify(r.stdout));
  assert.ok(r.stdout.includes("1. Kite \\x1b[31mred\\x1b[0m title"), r.stdout);
  assert.ok(r.stdout.includes("\\x1b[6n then \\x1b]8;;http://x\\x07link\\x1b]8;;\\x07"), r.stdout);
  assert.ok(r.stdout.includes("then \\x9b2J then \\u202e done"), r.stdout);
});

Deno.test("engram search --json returns the exact stored text (and no raw C1 or bidi bytes)", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "evil.md", NOTE);
  assertOk(await runEngram(["remember", file], { dataDir: dir.path }));
  const raw = await runEngram(["search", "kites", "--json"], { dataDir: dir.path });
  assertOk(raw);
  assert.doesNotMatch(raw.stdout, RAW_ACTIVE);
  const result = JSON.parse(raw.stdout) as { hits: { title: string; content: string }[] };
  assert.equal(result.hits[0].title, TITLE);
  assert.ok(result.hits[0].content.includes(BODY), JSON.stringify(result.hits[0].content));
  const doc = await runJson<{ title: string }>(["remember", file, "--json"], { dataDir: dir.path });
  assert.equal(doc.title, TITLE);
});

Deno.test("engram ask: a streamed answer quoting stored escapes shows them as visible text", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "evil.md", NOTE);
  assertOk(await runEngram(["remember", file], { dataDir: dir.path }));
  const r = await runEngram(["ask", "what about the kites report?"], { dataDir: dir.path });
  assertOk(r);
  assert.doesNotMatch(r.stdout, RAW_ACTIVE, JSON.stringify(r.stdout));
  assert.ok(r.stdout.includes("\\x1b[6n"), r.stdout);
});

Deno.test("error messages and log lines on stderr show control characters as escapes", async () => {
  await using dir = await tempDir();
  const r = await runEngram(["search", "x", "--brain", "evil\x1b[2J"], { dataDir: dir.path });
  assert.equal(r.code, 1);
  assert.doesNotMatch(r.stderr, RAW_ACTIVE, JSON.stringify(r.stderr));
  assert.ok(r.stderr.includes("evil\\x1b[2J"), r.stderr);

  const script = `import { stderrLogger } from "${ROOT}src/cli/logger.ts";
stderrLogger("info").warn("upstream said \\x1b]0;pwned\\x07", { detail: "\\u009b6n" });`;
  const log = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--config", `${ROOT}deno.json`, script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(log.stderr);
  assert.equal(log.code, 0, stderr);
  assert.doesNotMatch(stderr, RAW_ACTIVE, JSON.stringify(stderr));
  assert.ok(stderr.includes("upstream said \\x1b]0;pwned\\x07"), stderr);
  assert.ok(stderr.includes("\\x9b6n"), stderr);
});
