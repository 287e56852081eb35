/**
 * @module Which config file engram reads, and why: the search order of
 * docs/configuration.md#where-the-config-is-read-from, each rule named, so `engram config path`,
 * `engram version --json`, the start-up log line and every "add it to the config" hint can say
 * which file they mean.
 */
import { EngramError } from "../core/errors.ts";
import type { EnvSnapshot } from "./env.ts";
import { expandHome, joinPath } from "./paths.ts";

/** The rule of the search order that chose the file (`none`: no file, defaults apply). */
export type ConfigRule = "flag" | "env" | "project" | "user" | "none";

/** One place of the search order, as looked at. */
export interface SearchedPlace {
  rule: Exclude<ConfigRule, "none">;
  /** The path looked at; null when the rule does not apply (no --config, no $ENGRAM_CONFIG). */
  path: string | null;
  exists: boolean;
}

/** Where the config comes from. */
export interface ConfigLocation {
  /** The file in use, or null when engram runs on its defaults. */
  file: string | null;
  rule: ConfigRule;
  /** The file in use, else the user's file a config would be read from once written. */
  path: string;
  /** The rule in words, e.g. "$ENGRAM_CONFIG names it". */
  reason: string;
  /** Every place of the search order, in order. */
  searched: SearchedPlace[];
}

/** Finds the config: `--config`, `$ENGRAM_CONFIG` (both must exist), `./config/engram.yaml`, the user's file. */
export function locateConfig(
  flags: { config?: string },
  o: { env: EnvSnapshot; cwd: string },
): ConfigLocation {
  const { env, cwd } = o;
  // An empty --config or $ENGRAM_CONFIG counts as unset, like every other engram variable.
  const fromFlag = flags.config || undefined;
  const fromEnv = env.get("ENGRAM_CONFIG") || undefined;
  const explicit = fromFlag ?? fromEnv;
  const flagPath = fromFlag === undefined ? null : expandHome(fromFlag, env, cwd);
  const envPath = fromEnv === undefined ? null : expandHome(fromEnv, env, cwd);
  const project = joinPath(cwd, "config/engram.yaml");
  const user = userConfigFile(env) ?? project;
  const searched: SearchedPlace[] = [
    { rule: "flag", path: flagPath, exists: flagPath !== null && isFile(flagPath) },
    { rule: "env", path: envPath, exists: envPath !== null && isFile(envPath) },
    { rule: "project", path: project, exists: isFile(project) },
    { rule: "user", path: user, exists: isFile(user) },
  ];
  if (explicit !== undefined) {
    const rule = fromFlag !== undefined ? "flag" : "env";
    const path = (rule === "flag" ? flagPath : envPath)!;
    if (!isFile(path)) {
      const from = rule === "flag" ? "--config" : "ENGRAM_CONFIG";
      const what = isDirectory(path) ? "is a directory, not a YAML file" : "does not exist";
      throw new EngramError("invalid_argument", `config file ${path} (from ${from}) ${what}`);
    }
    const reason = rule === "flag" ? "--config names it" : "$ENGRAM_CONFIG names it";
    return { file: path, rule, path, reason, searched };
  }
  const found = searched.find((p) => p.exists);
  if (found?.rule === "project") {
    return {
      file: project,
      rule: "project",
      path: project,
      reason: `./config/engram.yaml exists in the working directory ${cwd}`,
      searched,
    };
  }
  if (found?.rule === "user") {
    return { file: user, rule: "user", path: user, reason: userReason(env), searched };
  }
  return {
    file: null,
    rule: "none",
    path: user,
    reason:
      `no config file: none of --config, $ENGRAM_CONFIG, ./config/engram.yaml or ${user} exists, so engram runs on its defaults`,
    searched,
  };
}

/**
 * The config file named for a hint that says to add something to it: the file in use, else the
 * user's file to create (docs/configuration.md#where-the-config-is-read-from).
 */
export function configFileHint(location: Pick<ConfigLocation, "file" | "path">): string {
  return location.file !== null
    ? `the config file ${location.file}`
    : `a config file at ${location.path} (none exists yet; create it)`;
}

/** The config in use for a status line: `FILE (rule)`, or that there is none and where one would be read. */
export function configSummary(location: Pick<ConfigLocation, "file" | "path" | "rule">): string {
  return location.file !== null
    ? `${location.file} (${RULE_WORDS[location.rule]})`
    : `none, defaults apply (would be read from ${location.path})`;
}

/** Each rule as the search order writes it. */
export const RULE_WORDS: Record<ConfigRule, string> = {
  flag: "--config",
  env: "$ENGRAM_CONFIG",
  project: "./config/engram.yaml",
  user: "$XDG_CONFIG_HOME/engram/engram.yaml",
  none: "none",
};

/** `$XDG_CONFIG_HOME/engram/engram.yaml`, else `~/.config/engram/engram.yaml`; null without either. */
function userConfigFile(env: EnvSnapshot): string | null {
  const xdg = env.get("XDG_CONFIG_HOME");
  if (xdg) return joinPath(xdg, "engram/engram.yaml");
  const home = env.get("HOME");
  return home ? joinPath(home, ".config/engram/engram.yaml") : null;
}

function userReason(env: EnvSnapshot): string {
  return env.get("XDG_CONFIG_HOME")
    ? "$XDG_CONFIG_HOME/engram/engram.yaml exists and no earlier rule applies"
    : "~/.config/engram/engram.yaml exists ($XDG_CONFIG_HOME is unset) and no earlier rule applies";
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}
