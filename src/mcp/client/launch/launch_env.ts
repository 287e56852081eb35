/**
 * @module The environment a stdio server starts with: PATH, HOME, LANG and TZ from engram's own
 * environment, then the server's configured `env` with its `${VAR}` references expanded, and
 * nothing else. engram's variables (ENGRAM_*, provider keys, tokens) never reach a server unless
 * its reviewed config names them.
 */
import type { EnvSnapshot } from "../../../config/env.ts";
import { expandReferences } from "../../../config/mcp_servers.ts";

/** Variables passed through from engram's environment when set. */
const BASE_VARIABLES = ["PATH", "HOME", "LANG", "TZ"] as const;

/** A configured value that refers to a variable engram's environment does not have. */
export interface MissingReference {
  /** The key in `env` (or `headers`) whose value holds the reference. */
  key: string;
  variable: string;
}

/** Expands every `${VAR}` in a map of configured values (env or headers). */
export function expandValues(
  values: Record<string, string>,
  env: EnvSnapshot,
): { values: Record<string, string>; missing: MissingReference[] } {
  const out: Record<string, string> = {};
  const missing: MissingReference[] = [];
  for (const [key, raw] of Object.entries(values)) {
    const expanded = expandReferences(raw, env);
    out[key] = expanded.value;
    missing.push(...expanded.missing.map((variable) => ({ key, variable })));
  }
  return { values: out, missing };
}

/**
 * The complete environment of a server process. `home` replaces HOME (inside the restricted
 * sandbox the real home does not exist, so HOME is the server's sandbox directory).
 */
export function launchEnvironment(
  configured: Record<string, string>,
  options: { env: EnvSnapshot; home?: string },
): { vars: Record<string, string>; missing: MissingReference[] } {
  const vars: Record<string, string> = {};
  for (const name of BASE_VARIABLES) {
    const value = options.env.get(name);
    if (value !== undefined) vars[name] = value;
  }
  vars.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  if (options.home) vars.HOME = options.home;
  const expanded = expandValues(configured, options.env);
  return { vars: { ...vars, ...expanded.values }, missing: expanded.missing };
}
