/**
 * @module The `restricted` sandbox: bubblewrap with every namespace unshared (network only when
 * the server's config allows it), a read-only view of the system directories programs need
 * (/usr, the /bin, /sbin and /lib* links or directories, a few /etc files), a private /tmp, /proc
 * and /dev, and one writable directory: the server's own `<data dir>/sandboxes/<server>`.
 * A configured `cwd` is shown read-only. Nothing else of the host (home, engram's database,
 * other servers' directories) exists inside. With `network: true` and pasta at hand, the network
 * is a namespace of its own without the host's loopback (sandbox_network.ts); without pasta it is
 * the host's, loopback included, and `doctor` says so.
 */
import { joinPath } from "../../../config/paths.ts";
import { HELPER_PATH, locateCommand } from "./command_path.ts";
import { type NetworkProbe, pastaArgs, probePasta } from "./sandbox_network.ts";

/**
 * Whether bubblewrap can run here: its absolute path, or why not and the fix. `network` says whether pasta
 * gives a sandbox its own network (absent when not probed: the host's network is shared).
 */
export type SandboxProbe =
  | { ok: true; bwrap: string; network?: NetworkProbe }
  | { ok: false; reason: string; fix: string };

/** System directories shown read-only (or re-created as the same symlinks on merged-/usr hosts). */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * /etc entries programs read: the dynamic loader's cache, users and groups (os.userInfo), name
 * resolution and CA certificates (for `network: true`), time zones, Debian's alternatives links.
 * Not /etc as a whole: it holds host secrets (shadow, ssh keys, credentials of services).
 */
const ETC_ENTRIES = [
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "alternatives",
  "passwd",
  "group",
  "nsswitch.conf",
  "hosts",
  "host.conf",
  "resolv.conf",
  "gai.conf",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "pki",
  "crypto-policies",
  "localtime",
  "timezone",
];

/**
 * What a probe runs inside: `true`, found on the system's PATH (engram's own PATH may name
 * directories the sandbox does not show), with the environment set as a launch sets it, so a
 * bubblewrap without `--clearenv` fails the probe rather than a launch.
 */
const PROBE_RUN = ["--clearenv", "--setenv", "PATH", HELPER_PATH, "--", "true"];

/** Fix shown when bubblewrap cannot be used. */
const STANDARD_FIX = "or set sandbox_profile: standard for this server";

/** What the sandbox of one server shows besides the system. */
export interface SandboxPlan {
  /** The only writable directory, also the working directory unless `cwd` is set. */
  sandboxDir: string;
  /** The configured working directory (absolute), shown read-only. */
  cwd?: string;
  network: boolean;
}

/**
 * What runs inside: the command (absolute, as the launch rules judged it), its arguments and its
 * whole environment, which bubblewrap sets inside; bubblewrap itself runs with a clean one.
 */
export interface SandboxRun {
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
}

/** `bwrap` arguments that run `command args` inside the sandbox described by `plan`. */
export function bwrapArgs(plan: SandboxPlan, run: SandboxRun): string[] {
  return bwrapArgv(plan, run, []);
}

/** The program engram spawns for a restricted server, and its arguments. */
export interface SandboxLaunch {
  program: string;
  args: string[];
}

/**
 * How to start `run` in the sandbox of `plan`: bubblewrap, or — with network and pasta at hand —
 * pasta around bubblewrap, which then shares pasta's namespace instead of the host's network.
 * Writes `<data dir>/sandboxes/resolv.conf` when DNS is forwarded.
 */
export async function sandboxLaunch(
  sandbox: Extract<SandboxProbe, { ok: true }>,
  plan: SandboxPlan,
  run: SandboxRun,
): Promise<SandboxLaunch> {
  const net = sandbox.network;
  if (!plan.network || !net?.ok) {
    return { program: sandbox.bwrap, args: bwrapArgs(plan, run) };
  }
  // Inside pasta's user namespace bubblewrap would map the user to root; keep engram's own ids,
  // read from the directory engram just created (Deno lets no one read /proc/self here).
  const owner = Deno.statSync(plan.sandboxDir);
  const extra = owner.uid === null || owner.gid === null
    ? []
    : ["--uid", String(owner.uid), "--gid", String(owner.gid)];
  if (net.resolvConf) {
    const file = joinPath(sandboxesDirOf(plan.sandboxDir), "resolv.conf");
    await Deno.writeTextFile(file, net.resolvConf, { mode: 0o644 });
    extra.push("--ro-bind", file, "/etc/resolv.conf");
  }
  return {
    program: net.pasta,
    args: pastaArgs(net, [sandbox.bwrap, ...bwrapArgv(plan, run, extra)]),
  };
}

/** `<data dir>/sandboxes`, from a server's sandbox directory in it. */
function sandboxesDirOf(sandboxDir: string): string {
  return sandboxDir.replace(/\/[^/]+\/?$/, "");
}

/** bubblewrap's arguments with `extra` (ids, binds) after the system and before the server's dirs. */
function bwrapArgv(plan: SandboxPlan, run: SandboxRun, extra: readonly string[]): string[] {
  return [
    ...isolationArgs(plan.network),
    ...extra,
    // cwd first: a later bind covers an earlier one, so a cwd above the sandbox dir can never hide
    // the server's own writable dir behind a read-only view.
    ...(plan.cwd ? ["--ro-bind", plan.cwd, plan.cwd] : []),
    "--bind",
    plan.sandboxDir,
    plan.sandboxDir,
    "--clearenv",
    ...Object.entries(run.env ?? {}).flatMap(([key, value]) => ["--setenv", key, value]),
    "--chdir",
    plan.cwd ?? plan.sandboxDir,
    "--",
    run.command,
    ...run.args,
  ];
}

/** Namespaces, the read-only system and private /proc, /dev and /tmp: all but the server's own dirs. */
function isolationArgs(network: boolean): string[] {
  return [
    "--unshare-all",
    ...(network ? ["--share-net"] : []),
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    ...systemBinds(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    // Before the server's directories are bound: they may lie under /tmp.
    "--tmpfs",
    "/tmp",
  ];
}

/** Read-only binds of the system directories present on this host, symlinks kept as symlinks. */
function systemBinds(): string[] {
  const out: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const info = lstat(dir);
    if (!info) continue;
    if (info.isSymlink) out.push("--symlink", Deno.readLinkSync(dir), dir);
    else if (info.isDirectory) out.push("--ro-bind", dir, dir);
  }
  for (const entry of ETC_ENTRIES) out.push("--ro-bind-try", `/etc/${entry}`, `/etc/${entry}`);
  return out;
}

/**
 * Whether a host path is visible inside the sandbox of `plan`: under a system directory, the
 * sandbox directory or the read-only `cwd`. Checked on both the path and its real path, since
 * the sandbox follows the symlink inside.
 */
export function visibleInSandbox(
  location: { path: string; realPath: string },
  plan: Pick<SandboxPlan, "sandboxDir" | "cwd">,
): boolean {
  const roots = [...SYSTEM_DIRS, plan.sandboxDir, ...(plan.cwd ? [plan.cwd] : [])];
  const under = (p: string) => roots.some((r) => p === r || p.startsWith(`${r}/`));
  return under(location.path) && under(location.realPath);
}

/** The directories the sandbox shows, for messages. */
export const VISIBLE_DIRS = "/usr, /bin, /sbin, /lib*, the server's sandbox directory and its cwd";

/**
 * Runs bubblewrap once with the real sandbox flags and `true` inside, so "available" means it
 * can create its namespaces here, not merely that it is installed. A bare name is looked up
 * through the absolute entries of `path` (default HELPER_PATH): the probe answers with the
 * absolute path every launch then runs, never a name a server's PATH could redirect.
 */
export async function probeBubblewrap(
  options: { bwrap?: string; path?: string } = {},
): Promise<SandboxProbe> {
  const named = options.bwrap ?? "bwrap";
  const bwrap = locateCommand(named, options.path ?? HELPER_PATH)?.path ?? named;
  let out: Deno.CommandOutput;
  try {
    if (!bwrap.startsWith("/")) throw new Deno.errors.NotFound(bwrap);
    out = await new Deno.Command(bwrap, {
      args: [...isolationArgs(false), ...PROBE_RUN],
      clearEnv: true,
      env: { PATH: HELPER_PATH },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return {
        ok: false,
        reason: `bubblewrap is not installed (${JSON.stringify(bwrap)} not found)`,
        fix:
          `install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) ${STANDARD_FIX}`,
      };
    }
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
      return {
        ok: false,
        reason: `${JSON.stringify(bwrap)} is not in this binary's allow-run list`,
        fix:
          `build engram with bwrap in it (deno task compile --allow-run=...,bwrap) ${STANDARD_FIX}`,
      };
    }
    return {
      ok: false,
      reason: `bubblewrap could not be started: ${(err as Error).message}`,
      fix: `check ${JSON.stringify(bwrap)} ${STANDARD_FIX}`,
    };
  }
  if (out.success) return { ok: true, bwrap };
  return {
    ok: false,
    reason: `bubblewrap cannot create its namespaces here (exit ${out.code}: ${
      firstLine(out.stderr)
    })`,
    fix:
      `allow unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap) ${STANDARD_FIX}`,
  };
}

/**
 * Probes bubblewrap and, when it runs, pasta around it (with the sandbox's real flags and network
 * shared into pasta's namespace), so the facts say both what runs and how the network is given.
 */
export async function probeSandbox(
  options: { bwrap?: string; pasta?: string; path?: string } = {},
): Promise<SandboxProbe> {
  const bwrap = await probeBubblewrap(options);
  if (!bwrap.ok) return bwrap;
  const inner = [bwrap.bwrap, ...isolationArgs(true), ...PROBE_RUN];
  return { ...bwrap, network: await probePasta(inner, options) };
}

/** The sandbox directory of one server: `<data dir>/sandboxes/<server>`. */
export function sandboxDirOf(dataDir: string, server: string): string {
  return joinPath(sandboxesDir(dataDir), server);
}

function sandboxesDir(dataDir: string): string {
  return joinPath(dataDir, "sandboxes");
}

/** Creates `<data dir>/sandboxes/<server>` with mode 0700 (and its parent) and returns it. */
export async function prepareSandboxDir(dataDir: string, server: string): Promise<string> {
  const parent = sandboxesDir(dataDir);
  const dir = sandboxDirOf(dataDir, server);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode only applies to directories it creates; an older one is tightened too.
  await Deno.chmod(parent, 0o700);
  await Deno.chmod(dir, 0o700);
  return dir;
}

function lstat(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

/** The first line of a child's stderr, as data: control characters dropped, length bounded. */
function firstLine(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes).split("\n")[0] ?? "";
  // deno-lint-ignore no-control-regex
  return JSON.stringify(text.replace(/[\x00-\x1f\x7f]/g, "").slice(0, 200));
}
