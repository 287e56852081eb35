/**
 * @module Where a command resolves on this machine, the way `execvp` would find it: an absolute
 * path as given, a bare name through the directories of `PATH`. The sandbox needs the real
 * location to know whether the command is visible inside it.
 */

/**
 * The PATH of the helpers engram starts on the host (perl, bwrap, pasta) and of their probes: the
 * system's directories, never the server's PATH (an empty or relative entry there means the
 * working directory, which the server can write).
 */
export const HELPER_PATH = "/usr/bin:/bin";

/** A command found on this machine. */
export interface CommandLocation {
  /** The path `execvp` would run (the PATH entry joined with the name). */
  path: string;
  /** The same with every symlink resolved (npx, for one, links into a package directory). */
  realPath: string;
}

/** The executable `command` resolves to with this `PATH`, or null when there is none. */
export function locateCommand(command: string, path: string | undefined): CommandLocation | null {
  if (command.includes("/")) return command.startsWith("/") ? executable(command) : null;
  for (const dir of (path ?? "").split(":")) {
    // Empty and relative PATH entries mean the working directory, which differs per server.
    if (!dir.startsWith("/")) continue;
    const found = executable(`${dir.replace(/\/+$/, "")}/${command}`);
    if (found) return found;
  }
  return null;
}

function executable(path: string): CommandLocation | null {
  try {
    const info = Deno.statSync(path);
    if (!info.isFile || info.mode === null || (info.mode & 0o111) === 0) return null;
    return { path, realPath: Deno.realPathSync(path) };
  } catch {
    return null;
  }
}
