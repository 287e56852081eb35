/** @module Data directory resolution and small path helpers (POSIX paths; engram targets Linux and macOS). */
import type { EnvSnapshot } from "./env.ts";

/** Joins path segments with `/`. */
export function joinPath(...parts: string[]): string {
  return parts.join("/").replace(/\/{2,}/g, "/");
}

/**
 * The directory the user's relative paths mean: `INIT_CWD` when it names an existing absolute
 * directory, else the process's own. `deno task` (and `npm run`) start the command in the
 * project's folder and keep the folder the user ran it from in `INIT_CWD`.
 */
export function userDirectory(env: EnvSnapshot, processCwd: string): string {
  const init = env.get("INIT_CWD");
  if (!init || !init.startsWith("/")) return processCwd;
  try {
    return Deno.statSync(init).isDirectory ? init : processCwd;
  } catch {
    return processCwd;
  }
}

/** Expands a leading `~` and makes a relative path absolute against `cwd`. */
export function expandHome(path: string, env: EnvSnapshot, cwd?: string): string {
  let out = path;
  if (out === "~" || out.startsWith("~/")) out = (env.get("HOME") ?? "") + out.slice(1);
  if (cwd && !out.startsWith("/")) out = joinPath(cwd, out);
  return out;
}

/** `--data` > `$ENGRAM_DATA_DIR` > config `data_dir` > `$XDG_DATA_HOME/engram` > `~/.local/share/engram`. */
export function dataDirectory(
  o: { flag?: string; config?: string; env: EnvSnapshot; cwd: string },
): string {
  // An empty ENGRAM_DATA_DIR counts as unset, so the config's data_dir still applies.
  const chosen = o.flag || o.env.get("ENGRAM_DATA_DIR") || o.config;
  if (chosen) return expandHome(chosen, o.env, o.cwd);
  const xdg = o.env.get("XDG_DATA_HOME");
  if (xdg) return joinPath(xdg, "engram");
  const home = o.env.get("HOME");
  if (!home) return joinPath(o.cwd, ".engram");
  return joinPath(home, ".local/share/engram");
}

/** engram's config folder: `$XDG_CONFIG_HOME/engram`, else `~/.config/engram` (review keys go here). */
export function configDirectory(o: { env: EnvSnapshot; cwd: string }): string {
  const xdg = o.env.get("XDG_CONFIG_HOME");
  if (xdg) return joinPath(xdg, "engram");
  const home = o.env.get("HOME");
  return home ? joinPath(home, ".config/engram") : joinPath(o.cwd, ".engram");
}
