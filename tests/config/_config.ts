/**
 * @module Loading config the way the config tests need it: in a sandbox directory whose HOME and
 * XDG directories lie inside it, and the refusals checked for their code, text and lack of stack.
 */
import assert from "node:assert/strict";
import { envFrom } from "../../src/config/env.ts";
import { type ConfigFlags, loadConfig } from "../../src/config/load.ts";
import { EngramError } from "../../src/core/errors.ts";
import { tempDir } from "../helpers.ts";
import { STACK_LINE, writeText } from "../cli/_util.ts";

/** Loads config for a sandbox: cwd = dir, HOME and XDG dirs inside it, plus `vars`. */
export function load(dir: string, flags: ConfigFlags = {}, vars: Record<string, string> = {}) {
  return loadConfig(flags, {
    env: envFrom({
      HOME: `${dir}/home`,
      XDG_CONFIG_HOME: `${dir}/xdg-config`,
      XDG_DATA_HOME: `${dir}/xdg-data`,
      ...vars,
    }),
    cwd: dir,
  });
}

/** Asserts `fn` throws an invalid_argument EngramError whose message matches every pattern. */
export function assertConfigError(fn: () => unknown, ...patterns: (RegExp | string)[]): string {
  let message = "";
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof EngramError, `expected EngramError, got ${err}`);
    assert.equal(err.code, "invalid_argument");
    message = err.message;
    for (const p of patterns) {
      if (typeof p === "string") assert.ok(message.includes(p), `${message}\n  lacks: ${p}`);
      else assert.match(message, p);
    }
    assert.doesNotMatch(message, STACK_LINE);
    return true;
  });
  return message;
}

/** Loads `lines` written as the config file `engram.yaml` of a fresh sandbox, with `vars` set. */
export async function loadYaml(lines: string[], vars: Record<string, string> = {}) {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "engram.yaml", lines.join("\n") + "\n");
  return { file, config: load(dir.path, { config: file }, vars) };
}

/** Asserts the YAML fails with one line per problem, the first matching `config FILE:LINE key PATH: ...`. */
export async function assertRefused(lines: string[], line: number, key: string, message: RegExp) {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "engram.yaml", lines.join("\n") + "\n");
  const refusal = assertConfigError(() => load(dir.path, { config: file }));
  const first = refusal.split("\n")[0];
  assert.ok(first.startsWith(`config ${file}:${line} key ${key}: `), refusal);
  assert.match(first, message);
}
