/** @module Data directory resolution and small path helpers (POSIX paths; engram targets Linux and macOS). */
import type { EnvSnapshot } from "./env.ts";

/** Joins path segments with `/`. */
export function joinPath(...parts: string[]): string {
  return parts.join("/").replace(/\/{2,}/g, "/");
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
