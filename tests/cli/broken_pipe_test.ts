import assert from "node:assert/strict";
import { engramCommandArgs, engramEnv, runEngram, tempDir } from "../helpers.ts";
import { assertOk, writeText } from "./_util.ts";

/**
 * Runs engram with a stdout pipe whose reader reads at most `bytes` bytes and then goes away, as
 * `engram … | head -c N` does. With `bytes` 0 the pipe is closed before engram writes anything,
 * so its first write meets a closed pipe whatever the timing.
 */
async function runIntoClosedPipe(
  args: string[],
  o: { dataDir: string; bytes: number },
): Promise<{ code: number; stderr: string; read: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: engramCommandArgs(args),
    cwd: o.dataDir,
    env: engramEnv(o.dataDir),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let read = 0;
  const reader = child.stdout.getReader();
  while (read < o.bytes) {
    const chunk = await reader.read();
    if (chunk.done) break;
    read += chunk.value.length;
  }
  await reader.cancel();
  const stderr = new Response(child.stderr).text();
  const status = await child.status;
  return { code: status.code, stderr: await stderr, read };
}

Deno.test("engram search into a closed pipe (| head) exits 0 with nothing on stderr", async () => {
  await using dir = await tempDir();
  assertOk(
    await runEngram(["remember", "-"], { dataDir: dir.path, stdin: "# Kites\n\nkites fly\n" }),
  );
  const r = await runIntoClosedPipe(["search", "kites"], { dataDir: dir.path, bytes: 0 });
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
});

Deno.test("engram --help and search --json into a closed pipe exit 0 quietly", async () => {
  await using dir = await tempDir();
  for (const args of [["--help"], ["search", "x", "--json"], ["version"]]) {
    const r = await runIntoClosedPipe(args, { dataDir: dir.path, bytes: 0 });
    assert.equal(r.stderr, "", args.join(" "));
    assert.equal(r.code, 0, args.join(" "));
  }
});

Deno.test("a reader that takes a few bytes of a long streamed output and leaves: exit 0, quietly", async () => {
  await using dir = await tempDir();
  // Enough hits to overflow the pipe buffer, so engram is still writing when the reader leaves.
  for (let i = 0; i < 60; i++) {
    await writeText(
      dir.path,
      `notes/kites-${i}.md`,
      `# Kites ${i}\n\n${"kites fly high. ".repeat(400)}\n`,
    );
  }
  assertOk(await runEngram(["ingest", "notes", "--json"], { dataDir: dir.path }));
  const all = await runEngram(["search", "kites", "--top-k", "60", "--json"], {
    dataDir: dir.path,
  });
  assert.ok(
    all.stdout.length > 128 * 1024,
    `only ${all.stdout.length} bytes: too few to fill a pipe`,
  );
  const r = await runIntoClosedPipe(["search", "kites", "--top-k", "60", "--json"], {
    dataDir: dir.path,
    bytes: 10,
  });
  assert.ok(r.read >= 10);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
});
