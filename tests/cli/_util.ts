/** @module Helpers for the CLI and config tests (on top of tests/helpers.ts). */
import assert from "node:assert/strict";
import { type CliResult, engramCommandArgs, engramEnv, runEngram } from "../helpers.ts";

/** Matches any ANSI escape sequence (colour, bold, cursor movement). */
// deno-lint-ignore no-control-regex
export const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/;

/** A line of a JavaScript stack trace as Deno prints it. */
export const STACK_LINE = /^\s+at /m;

/** Writes a text file (creating parent directories) and returns its absolute path. */
export async function writeText(dir: string, name: string, text: string): Promise<string> {
  const path = `${dir}/${name}`;
  const parent = path.slice(0, path.lastIndexOf("/"));
  await Deno.mkdir(parent, { recursive: true });
  await Deno.writeTextFile(path, text);
  return path;
}

/** Whether a file or directory exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Asserts a failed run: its exit code, nothing on stdout, a message on stderr and no stack trace. */
export function assertFails(r: CliResult, code: number, message?: RegExp | string): void {
  assert.equal(r.code, code, `expected exit ${code}, got ${r.code}; stderr: ${r.stderr}`);
  assert.equal(r.stdout, "", `stdout should be empty on error, got: ${r.stdout}`);
  assert.notEqual(r.stderr.trim(), "", "an error must say what went wrong on stderr");
  assert.doesNotMatch(r.stderr, STACK_LINE, `stderr has a stack trace: ${r.stderr}`);
  if (typeof message === "string") assert.ok(r.stderr.includes(message), r.stderr);
  else if (message) assert.match(r.stderr, message);
}

/** Asserts a successful run: exit 0 and, unless allowed, nothing on stderr. */
export function assertOk(r: CliResult): void {
  assert.equal(r.code, 0, `expected exit 0, got ${r.code}; stderr: ${r.stderr}`);
  assert.equal(r.stderr, "", `stderr should be empty on success, got: ${r.stderr}`);
  assert.doesNotMatch(r.stdout, ANSI, "piped output must not be coloured");
}

/** Runs the CLI and parses its stdout as JSON, failing loudly if the command failed. */
export async function runJson<T = Record<string, unknown>>(
  args: string[],
  options: Parameters<typeof runEngram>[1],
): Promise<T> {
  const r = await runEngram(args, options);
  assertOk(r);
  return JSON.parse(r.stdout) as T;
}

/** Spawns the CLI with exactly `env` (nothing added), for tests that need a variable unset. */
export async function spawnEngram(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<CliResult> {
  return await spawnDeno(engramCommandArgs(args), options);
}

/** Runs `deno ARGS` with exactly `env`, stdin closed, and collects its output. */
export async function spawnDeno(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<CliResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** The environment runEngram uses, minus the keys named in `drop`. */
export function envWithout(
  dataDir: string,
  drop: string[],
  extra: Record<string, string> = {},
): Record<string, string> {
  const env = engramEnv(dataDir, extra);
  for (const k of drop) delete env[k];
  return env;
}

/** util-linux `script` is available, so a test can give the CLI a pseudo-terminal. */
export const HAS_SCRIPT: boolean = (() => {
  try {
    return new Deno.Command("script", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();
if (!HAS_SCRIPT) {
  console.log(
    "skipping terminal tests: util-linux `script` is not installed (apt-get install bsdutils)",
  );
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * Runs the CLI on a pseudo-terminal (via `script`): stdin and stdout are the terminal, and
 * `options.stdin` is typed into it. Returns everything the terminal showed.
 */
export async function runEngramOnTerminal(
  args: string[],
  options: { dataDir: string; env?: Record<string, string>; stdin?: string },
): Promise<CliResult> {
  const command = [Deno.execPath(), ...engramCommandArgs(args)].map(shellQuote).join(" ");
  const child = new Deno.Command("script", {
    args: ["-qec", command, "/dev/null"],
    cwd: options.dataDir,
    env: engramEnv(options.dataDir, options.env),
    clearEnv: true,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(options.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Deno's cache directory, so a spawned engram with a fake HOME still finds its modules. */
export async function denoDir(): Promise<string> {
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return fromEnv;
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stderr: "null" })
    .output();
  return (JSON.parse(new TextDecoder().decode(out.stdout)) as { denoDir: string }).denoDir;
}
