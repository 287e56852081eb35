/**
 * @module A Deno process using the SDK's Streamable HTTP client exits after `client.close()`
 * when it ends its session first (docs/http.md#clients-on-deno-end-the-session-before-closing); a real `engram serve` on loopback.
 */
import assert from "node:assert/strict";
import { tempDir } from "../helpers.ts";
import { createToken, spawnServe } from "./http_helpers.ts";

const CLIENT = new URL("../fixtures/http_client_exit.ts", import.meta.url).pathname;
/** Generous: the client normally exits in well under a second. */
const EXIT_WITHIN_MS = 20_000;

/** Runs the client fixture; its exit status, or null when it had to be killed after `ms`. */
async function runClient(args: string[], ms: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--v8-flags=--expose-gc",
      CLIENT,
      ...args,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  const first = await Promise.race([child.status, timedOut]);
  clearTimeout(timer);
  if (first === "timeout") child.kill("SIGKILL");
  const out = await output;
  const dec = new TextDecoder();
  return {
    exited: first !== "timeout",
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}

Deno.test("Streamable HTTP: an SDK client that lists tools, ends its session and closes exits by itself", async () => {
  await using dir = await tempDir();
  const token = await createToken(dir.path, { client: "exit", tier: "read" });
  const serve = await spawnServe(dir.path, []);
  try {
    const r = await runClient([`${serve.url}/mcp`, token], EXIT_WITHIN_MS);
    assert.ok(r.exited, `the client did not exit within ${EXIT_WITHIN_MS} ms\n${r.stderr}`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), "closed");
  } finally {
    serve.child.kill("SIGTERM");
  }
  assert.equal((await serve.child.status).code, 0);
  await serve.child.stdout.cancel();
  assert.match(await serve.stderr(), /engram serve stopped/);
});
