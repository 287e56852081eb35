/**
 * @module The network of a `restricted` server with `network: true`
 * (docs/upstream.md#the-sandbox-and-the-allow-run-list): pasta (Debian's `passt`) starts
 * bubblewrap in a network namespace of its own, with a user-mode network whose connections leave
 * through pasta's sockets on the host — but never to the host's loopback: no port is forwarded
 * either way (`-t/-u/-T/-U none`) and the gateway is not mapped to the host (`--no-map-gw`). A
 * loopback resolver in the host's /etc/resolv.conf (systemd-resolved, dnsmasq) is reached through
 * pasta's DNS forwarding: the sandbox gets a resolv.conf naming the forwarded address instead.
 */
import { HELPER_PATH, locateCommand } from "./command_path.ts";

/** Whether pasta can give a sandbox its own network here: how to run it, or why not and the fix. */
export type NetworkProbe =
  | {
    ok: true;
    /** pasta's absolute path. */
    pasta: string;
    /** pasta's arguments up to (not including) the `--` before bubblewrap. */
    args: string[];
    /** The sandbox's /etc/resolv.conf when the host's resolver is on its loopback; else null. */
    resolvConf: string | null;
  }
  | { ok: false; reason: string; fix: string };

/** The address a sandbox sends DNS queries to when pasta forwards them to a loopback resolver. */
export const DNS_FORWARD_ADDRESS = "169.254.1.1";

/**
 * Foreground, quiet, logs only to /dev/null (not syslog: its failures would fill the server's
 * stderr), the interface configured before the command runs, and nothing of the host's loopback.
 */
const ISOLATION = [
  "-f",
  "-q",
  "-l",
  "/dev/null",
  "--config-net",
  "-t",
  "none",
  "-u",
  "none",
  "-T",
  "none",
  "-U",
  "none",
  "--no-map-gw",
];

/**
 * The two ways pasta runs here, tried in this order. As root, pasta would drop to `nobody` and
 * could then neither map users nor (in Debian 12's version) exit, so it stays root and makes only
 * a network namespace (bubblewrap makes the user namespace inside); anyone else fails that form at
 * once ("Can't set GID to 0") and gets pasta's own user and network namespaces.
 */
const FORMS: readonly (readonly string[])[] = [["--runas", "0:0", "--netns-only"], []];

/** The fix shown when pasta cannot be used. */
const PASTA_FIX =
  "install passt (Debian/Ubuntu: apt-get install passt; Fedora: dnf install passt) to give it a network of its own, or set network: false";

/** A bound on the probe: pasta that cannot finish setting up is not waited on. */
const PROBE_TIMEOUT_MS = 10_000;

/** The argument vector of pasta running `inner` (bubblewrap and its arguments). */
export function pastaArgs(
  probe: Extract<NetworkProbe, { ok: true }>,
  inner: readonly string[],
): string[] {
  return [...probe.args, "--", ...inner];
}

/**
 * The sandbox's resolv.conf for host resolver settings `hostText`: null when its first
 * nameserver is reachable from a namespace as it is (not on the loopback, or none at all); else
 * the forwarded address as the only nameserver, the other lines (search, options) kept.
 */
export function sandboxResolvConf(hostText: string): string | null {
  const lines = hostText.split("\n");
  const servers = lines.flatMap((l) => {
    const m = /^\s*nameserver\s+(\S+)/.exec(l);
    return m ? [m[1]] : [];
  });
  if (servers.length === 0 || !isLoopback(servers[0])) return null;
  const rest = lines.filter((l) => !/^\s*nameserver\s/.test(l) && l.trim() !== "");
  return [`nameserver ${DNS_FORWARD_ADDRESS}`, ...rest].join("\n") + "\n";
}

function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === "::1" || /^0*:(0*:)*0*1$/.test(address);
}

/**
 * Runs pasta once around `inner` (bubblewrap with the real flags and `true` inside), so
 * "available" means pasta and bubblewrap together work here. A bare name is looked up through
 * the absolute entries of `path` (default HELPER_PATH), and the absolute path is what launches
 * run. `resolvText` is the host's /etc/resolv.conf (read when not given).
 */
export async function probePasta(
  inner: readonly string[],
  options: { pasta?: string; path?: string; resolvText?: string } = {},
): Promise<NetworkProbe> {
  const named = options.pasta ?? "pasta";
  const pasta = locateCommand(named, options.path ?? HELPER_PATH)?.path ?? named;
  if (!pasta.startsWith("/")) return spawnFailure(pasta, new Deno.errors.NotFound(pasta));
  const resolvConf = sandboxResolvConf(options.resolvText ?? readResolv());
  const dns = resolvConf ? ["--dns-forward", DNS_FORWARD_ADDRESS] : [];
  const failures: string[] = [];
  for (const form of FORMS) {
    const args = [...ISOLATION, ...dns, ...form];
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command(pasta, {
        args: [...args, "--", ...inner],
        clearEnv: true,
        env: { PATH: HELPER_PATH },
        stdin: "null",
        stdout: "null",
        stderr: "piped",
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      }).output();
    } catch (err) {
      return spawnFailure(pasta, err);
    }
    if (out.success) return { ok: true, pasta, args, resolvConf };
    failures.push(`exit ${out.code}: ${lastLine(out.stderr)}`);
  }
  // The first form's failure only says "not root" when the second one is what counts.
  const said = failures.find((f) => !/set [GU]ID to 0/.test(f)) ?? failures[0];
  return {
    ok: false,
    reason: `pasta cannot give a sandbox its own network here (${said})`,
    fix: PASTA_FIX,
  };
}

function spawnFailure(pasta: string, err: unknown): NetworkProbe {
  const name = JSON.stringify(pasta);
  if (err instanceof Deno.errors.NotFound) {
    return { ok: false, reason: `passt is not installed (${name} not found)`, fix: PASTA_FIX };
  }
  if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
    return {
      ok: false,
      reason: `${name} is not in this binary's allow-run list`,
      fix:
        "build engram with pasta in it (deno task compile --allow-run=...,pasta), or set network: false",
    };
  }
  if ((err as Error).name === "AbortError" || (err as Error).name === "TimeoutError") {
    return {
      ok: false,
      reason: `pasta did not finish setting up a network within ${PROBE_TIMEOUT_MS / 1000} s`,
      fix: PASTA_FIX,
    };
  }
  return {
    ok: false,
    reason: `pasta could not be started: ${(err as Error).message}`,
    fix: PASTA_FIX,
  };
}

function readResolv(): string {
  try {
    return Deno.readTextFileSync("/etc/resolv.conf");
  } catch {
    return "";
  }
}

/** The last non-empty line of a child's stderr, as data: control characters dropped, bounded. */
function lastLine(bytes: Uint8Array): string {
  const lines = new TextDecoder().decode(bytes).split("\n").filter((l) => l.trim() !== "");
  const text = lines.at(-1) ?? "";
  // deno-lint-ignore no-control-regex
  return JSON.stringify(text.replace(/[\x00-\x1f\x7f]/g, "").slice(0, 200));
}
