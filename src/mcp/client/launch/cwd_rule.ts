/**
 * @module The `cwd` launch rule (docs/upstream.md#launch-rules). A configured `cwd` is resolved
 * first — `~` expanded, `..` folded, symlinks followed when it exists — and that path is the one
 * every rule judges and the server runs in, so `~/../../etc` is judged as `/etc`. Under
 * `restricted` the cwd is the one host folder the sandbox shows, so `/`, a system folder, the home
 * folder or a parent of it, engram's data folder (its database, every sandbox directory) with what
 * is in it and its parents, engram's config folder (the review private key) likewise, credential
 * folders (~/.ssh, ~/.aws, …) and the world-writable folders themselves (/tmp: what every user
 * puts there) are refused: each would show the sandboxed server what the sandbox exists to hide.
 * A folder of one's own inside /tmp is allowed: the sticky bit keeps other users from renaming or
 * replacing it (with a symlink) between the check and the bind.
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

/**
 * World-writable folders, refused themselves: they hold every user's files. What is under them is
 * judged like any folder — the sticky bit lets only its owner rename or replace an entry, so
 * another user cannot swap one's own folder there for a symlink.
 */
const WORLD_WRITABLE = ["/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp"];

/** Credential folders under the home folder, refused with everything under them. */
const HOME_CREDENTIALS = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker",
  ".password-store",
  ".pki",
  ".terraform.d",
  ".config/gcloud",
  ".config/gh",
  ".config/op",
  ".local/share/keyrings",
];

/** Credential folders under the XDG config folder, when it is set apart from the home folder. */
const XDG_CREDENTIALS = ["gcloud", "gh", "op"];

/** Folders refused themselves only: they hold everyone's files, but a folder in them may be fine. */
const SHARED_FOLDERS = [
  "/home",
  "/Users",
  "/var",
  "/mnt",
  "/media",
  "/opt",
  "/srv",
  "/private",
  "/private/var",
];

/** What the server is told to do instead of the refused folder. */
const FIX =
  "set cwd to a folder that holds only what the server needs (e.g. ~/mcp/<server>), or remove cwd so it runs in its own sandbox directory";

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
      }, which is ${refused.what}`,
      fix: refused.why ? `${FIX}: ${refused.why}` : FIX,
    });
  }
  if (facts.isDirectory(cwd)) return pass("cwd", `cwd ${JSON.stringify(cwd)} is a directory`);
  return fail("cwd", {
    detail: `cwd ${JSON.stringify(cwd)} is not a directory`,
    fix: "create it or change cwd",
  });
}

/** Why `cwd` (resolved) may not be a server's cwd — what it is, and why that matters — or null. */
function refusal(cwd: string, facts: CwdFacts): { what: string; why?: string } | null {
  if (cwd === "/") return { what: "the root folder" };
  const tree = SYSTEM_TREES.find((t) => within(cwd, t));
  if (tree) return { what: tree === cwd ? "a system folder" : `inside the system folder ${tree}` };
  if (SHARED_FOLDERS.includes(cwd)) return { what: "a folder shared by every user" };
  // Said as what it is before any rule it also breaks (a parent of the data folder, say).
  const shared = WORLD_WRITABLE.find((t) => cwd === t);
  if (shared) {
    return {
      what: `the world-writable folder ${shared}`,
      why: "it holds every user's files, so use a folder of the server's own",
    };
  }
  const home = facts.env.get("HOME") || undefined;
  const realHome = home ? realOrNormal(home, facts) : undefined;
  if (realHome === cwd) return { what: "the home folder" };
  if (realHome && isParent(cwd, realHome)) return { what: "a parent of the home folder" };
  if (!realHome && /^\/(home|Users)\/[^/]+$/.test(cwd)) {
    // Without HOME, any user's home folder may be the operator's own.
    return {
      what: "a user's home folder (HOME is not set, so engram cannot tell whose)",
      why: "set HOME in engram's environment so it knows which home folder is yours",
    };
  }
  const data = realOrNormal(facts.dataDir, facts);
  const database = "engram's data folder (its database and every server's sandbox directory)";
  if (data === cwd) return { what: database };
  if (within(cwd, data)) return { what: `inside ${database}` };
  if (isParent(cwd, data)) return { what: `a parent of ${database}` };
  const xdg = facts.env.get("XDG_CONFIG_HOME") || undefined;
  const configBase = xdg ?? (home ? `${home}/.config` : undefined);
  if (configBase) {
    const config = realOrNormal(`${configBase}/engram`, facts);
    const what = "engram's config folder (it holds the operator's review private key)";
    if (within(cwd, config)) return { what: config === cwd ? what : `inside ${what}` };
    if (isParent(cwd, config)) return { what: `a parent of ${what}` };
  }
  const credentials = [
    ...(home ? HOME_CREDENTIALS.map((c) => `${home}/${c}`) : []),
    ...(xdg ? XDG_CREDENTIALS.map((c) => `${xdg}/${c}`) : []),
  ].map((c) => realOrNormal(c, facts));
  const secret = credentials.find((c) => within(cwd, c));
  if (secret) {
    return {
      what: `${secret === cwd ? "" : "inside "}the credential folder ${secret}`,
      why: "pass the one credential the server needs through env instead",
    };
  }
  return null;
}

/** Whether `path` is `folder` or inside it (both resolved). */
function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
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
