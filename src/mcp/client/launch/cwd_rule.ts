/**
 * @module The `cwd` launch rule (docs/upstream.md#launch-rules). A configured `cwd` is resolved
 * first — `~` expanded, `..` folded, symlinks followed when it exists — and that path is the one
 * every rule judges and the server runs in, so `~/../../etc` is judged as `/etc`. Under
 * `restricted` the cwd is the one host folder the sandbox shows, so `/`, a system folder, the home
 * folder or a parent of it, and engram's data folder or a parent of it (its database) are refused:
 * each would show the sandboxed server what the sandbox exists to hide.
 */
import { dirname, relative, resolve } from "node:path";
import type { EnvSnapshot } from "../../../config/env.ts";
import { ABSOLUTE_CWD } from "../../../config/mcp_servers.ts";
import { expandHome } from "../../../config/paths.ts";
import { fail, type LaunchCheck, pass } from "./command_rules.ts";

/** Folders refused together with everything under them: the system and its secrets. */
const SYSTEM_TREES = [
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/boot",
  "/root",
  "/proc",
  "/sys",
  "/dev",
  "/run",
  "/snap",
  "/var/lib",
  "/var/log",
  "/var/run",
  "/var/spool",
  "/var/mail",
  "/var/cache",
  "/var/backups",
  "/var/db",
  // macOS.
  "/System",
  "/Library",
  "/private/etc",
  "/private/var/db",
];

/** Folders refused themselves only: they hold everyone's files, but a folder in them may be fine. */
const SHARED_FOLDERS = [
  "/home",
  "/Users",
  "/tmp",
  "/var",
  "/var/tmp",
  "/mnt",
  "/media",
  "/opt",
  "/srv",
  "/private",
  "/private/var",
  "/private/tmp",
];

/** What the cwd rule needs of the machine. */
export interface CwdFacts {
  env: EnvSnapshot;
  dataDir: string;
  /** The real path of an existing path (symlinks followed), or null when it does not exist. */
  realPath(path: string): string | null;
  isDirectory(path: string): boolean;
}

/**
 * The path a configured `cwd` runs in: `~` expanded, `..` folded, symlinks followed when it
 * exists. Undefined for a relative `cwd`, which the rule refuses.
 */
export function resolveCwd(configured: string | undefined, facts: CwdFacts): string | undefined {
  if (configured === undefined || !ABSOLUTE_CWD.test(configured)) return undefined;
  return realOrNormal(expandHome(configured, facts.env), facts);
}

/** The `cwd` check of a configured cwd and its resolved path (from resolveCwd). */
export function cwdCheck(
  configured: string | undefined,
  cwd: string | undefined,
  facts: CwdFacts,
): LaunchCheck {
  if (configured === undefined) return pass("cwd", "runs in its sandbox directory");
  if (cwd === undefined) {
    // Relative to what engram was started in would make the same config run elsewhere.
    return fail("cwd", {
      detail: `cwd ${JSON.stringify(configured)} is a relative path`,
      fix: "write an absolute path, or one starting with ~/",
    });
  }
  const refused = refusal(cwd, facts);
  if (refused) {
    return fail("cwd", {
      detail: `cwd ${JSON.stringify(configured)} resolves to ${
        JSON.stringify(cwd)
      }, which is ${refused}`,
      fix:
        "set cwd to a folder that holds only what the server needs (e.g. ~/mcp/<server>), or remove cwd so it runs in its own sandbox directory",
    });
  }
  if (facts.isDirectory(cwd)) return pass("cwd", `cwd ${JSON.stringify(cwd)} is a directory`);
  return fail("cwd", {
    detail: `cwd ${JSON.stringify(cwd)} is not a directory`,
    fix: "create it or change cwd",
  });
}

/** Why `cwd` (resolved) may not be a server's cwd, or null. */
function refusal(cwd: string, facts: CwdFacts): string | null {
  if (cwd === "/") return "the root folder";
  const tree = SYSTEM_TREES.find((t) => cwd === t || cwd.startsWith(`${t}/`));
  if (tree) return tree === cwd ? "a system folder" : `inside the system folder ${tree}`;
  if (SHARED_FOLDERS.includes(cwd)) return "a folder shared by every user";
  const home = facts.env.get("HOME");
  if (home) {
    const real = realOrNormal(home, facts);
    if (real === cwd) return "the home folder";
    if (isParent(cwd, real)) return "a parent of the home folder";
  }
  const data = realOrNormal(facts.dataDir, facts);
  if (data === cwd) return "engram's data folder (its database)";
  if (isParent(cwd, data)) return "a parent of engram's data folder (its database)";
  return null;
}

/**
 * The real path of `path` as the kernel resolves it (symlinks, then `..`); for a path that does not
 * exist, `..` folded and the real path of its deepest existing parent with the rest appended.
 */
function realOrNormal(path: string, facts: CwdFacts): string {
  const direct = facts.realPath(path);
  if (direct !== null) return direct;
  const normal = resolve("/", path);
  for (let head = dirname(normal);; head = dirname(head)) {
    const real = facts.realPath(head);
    if (real !== null) return resolve(real, relative(head, normal));
    if (head === "/") return normal;
  }
}

/** Whether `parent` is a proper parent folder of `child` (both resolved). */
function isParent(parent: string, child: string): boolean {
  return parent === "/" || child.startsWith(`${parent}/`);
}
