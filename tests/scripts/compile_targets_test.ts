/**
 * @module scripts/compile.ts builds only for the targets engram supports: its flags default to
 * dist/engram, accept each of TARGETS with an output name, and refuse any other target before
 * `deno compile` runs.
 */
import assert from "node:assert/strict";
import { compileArgs, parseCompileArgs, TARGETS } from "../../scripts/compile.ts";

Deno.test("compile flags: no arguments still build dist/engram for this machine", () => {
  assert.deepEqual(parseCompileArgs([]), {
    output: "dist/engram",
    target: undefined,
    run: undefined,
  });
});

Deno.test("compile flags: every supported target is accepted and passed to deno compile", () => {
  assert.deepEqual([...TARGETS].sort(), [
    "aarch64-apple-darwin",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "x86_64-unknown-linux-gnu",
  ]);
  for (const target of TARGETS) {
    const options = parseCompileArgs(["--target", target, "--output", `dist/engram-${target}`]);
    assert.deepEqual(options, { output: `dist/engram-${target}`, target, run: undefined });
    const args = compileArgs(options.output, options);
    assert.equal(args[args.indexOf("--target") + 1], target);
    assert.equal(args[args.indexOf("--output") + 1], `dist/engram-${target}`);
  }
});

Deno.test("compile flags: an unsupported target is refused with the supported list", () => {
  assert.throws(
    () => parseCompileArgs(["--target", "x86_64-pc-windows-msvc"]),
    /unsupported --target "x86_64-pc-windows-msvc"; engram builds for: x86_64-unknown-linux-gnu/,
  );
});

Deno.test("compile task: an unsupported target exits 2 before deno compile starts", async () => {
  const script = new URL("../../scripts/compile.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", script, "--target", "wasm32-unknown-unknown"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 2, stderr);
  assert.match(stderr, /unsupported --target "wasm32-unknown-unknown"/);
  // compile.ts echoes the deno compile command just before it runs it.
  assert.doesNotMatch(stderr, /deno compile/);
});
