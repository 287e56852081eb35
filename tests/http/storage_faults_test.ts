/**
 * @module How a corrupt database reaches supervisors and agents (docs/operations.md#corrupt-or-full-database):
 * `engram serve`'s background quick check turns /readyz 503 and logs the file and the fix; a tool
 * call over stdio says `storage_corrupt` without the file's path.
 */
import assert from "node:assert/strict";
import { callErr, connectStdio, engramCommandArgs, engramEnv, tempDir } from "../helpers.ts";
import { databaseWithNotes, overwriteDocumentPages } from "../storage/sqlite/_corrupt.ts";

/** Reads `engram serve`'s stderr until `pattern` appears; returns all read so far. */
async function readUntil(
  reader: ReadableStreamDefaultReader<string>,
  seen: { text: string },
  pattern: RegExp,
): Promise<string> {
  while (!pattern.test(seen.text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stderr ended before ${pattern}:\n${seen.text}`);
    seen.text += value;
  }
  return seen.text;
}

Deno.test("serve on a damaged database: the background check logs the file and the fix, and /readyz turns 503", async () => {
  await using dir = await tempDir();
  const file = await databaseWithNotes(dir.path);
  await overwriteDocumentPages(file);
  const child = new Deno.Command(Deno.execPath(), {
    args: engramCommandArgs(["serve", "--port", "0", "--insecure-no-auth"]),
    cwd: dir.path,
    env: engramEnv(dir.path),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const seen = { text: "" };
  try {
    await readUntil(reader, seen, /serving MCP at (http:\/\/\S+)\/mcp/);
    const url = seen.text.match(/serving MCP at (http:\/\/\S+)\/mcp/)![1];
    const log = await readUntil(reader, seen, /failed quick_check.*\n/);
    assert.ok(log.includes(`database ${file} failed quick_check`), log);
    assert.match(log, /engram restore FILE --force/);
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal((await ready.text()).trim(), "not ready");
    const live = await fetch(`${url}/healthz`);
    assert.equal(live.status, 200, "the process itself is alive");
    await live.body?.cancel();
  } finally {
    child.kill("SIGTERM");
    await reader.cancel();
    await child.status;
  }
});

Deno.test("stdio on a damaged database: a tool call says storage_corrupt without the file; the log names it", async () => {
  await using dir = await tempDir();
  const file = await databaseWithNotes(dir.path);
  await overwriteDocumentPages(file);
  await using c = await connectStdio(dir.path);
  const err = await callErr(c.client, "memory_get", { path: "/notes/n1.md" });
  assert.equal(err.code, "storage_corrupt");
  assert.equal(err.retryable, false);
  assert.match(err.message, /^the database is corrupt \(database disk image is malformed\)/);
  assert.match(err.message, /engram restore/);
  assert.ok(!err.text.includes(dir.path), `a remote client never sees local paths: ${err.text}`);
  assert.doesNotMatch(err.text, /internal|unexpected error/);
  const again = await callErr(c.client, "memory_timeline", {});
  assert.equal(again.code, "storage_corrupt");
  assert.ok(c.stderr().includes(file), "the operator log names the file");
});
