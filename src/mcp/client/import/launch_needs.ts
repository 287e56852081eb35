/**
 * @module What a stdio server's launch will need that its entry does not give it, read from the
 * command line alone (nothing runs): a package runner (`npx`, `uvx`, `pipx run`, `bunx`, `deno run
 * npm:`…) fetches the package on its first start, so it needs network; an argument that is a host
 * path (absolute or `~`) names something the `restricted` sandbox hides; a container runtime needs
 * the host's socket. Each need comes with the `engram mcp review` command that settles it
 * (docs/upstream.md#the-sandbox-and-the-allow-run-list). `engram mcp import` flags them; review shows them too.
 */
import type { McpServerConfig } from "../../../config/mcp_servers.ts";
import { expandHome } from "../../../config/paths.ts";
import { envFrom } from "../../../config/env.ts";
import { sandboxDirOf, visibleInSandbox } from "../launch/sandbox.ts";

/** Something a launch needs: network, a host path the sandbox hides, or the standard sandbox. */
export interface LaunchNeed {
  kind: "network" | "host_path" | "standard";
  /** What needs it, e.g. `npx -y fetches the package on its first start`. */
  detail: string;
  /** The command that gives it. */
  fix: string;
}

/** The launch keys the needs are read from. */
export type LaunchShape = Pick<McpServerConfig, "name"> & {
  /** A list-valued command cannot run as written; it has no needs to read. */
  command?: string | readonly string[];
  args?: readonly string[];
  cwd?: string;
  sandbox_profile?: string;
  network?: boolean;
};

/** Runners that fetch what they run: the command's base name and, when one is needed, its subcommand. */
const RUNNERS: { command: string; sub?: string }[] = [
  { command: "npx" },
  { command: "pnpx" },
  { command: "bunx" },
  { command: "uvx" },
  { command: "pipx", sub: "run" },
  { command: "uv", sub: "tool" },
  { command: "pnpm", sub: "dlx" },
  { command: "yarn", sub: "dlx" },
  { command: "npm", sub: "exec" },
  { command: "bun", sub: "x" },
];

/** Specifiers `deno run` fetches from the network unless `--cached-only` is given. */
const DENO_REMOTE = /^(npm:|jsr:|https?:\/\/)/;

/** Container runtimes: they talk to a daemon through a socket the restricted sandbox hides. */
const CONTAINERS = new Set(["docker", "podman", "nerdctl"]);

/**
 * What `server`'s launch needs beyond its entry. Only needs its entry does not already meet are
 * listed: network when `network` is off, host paths and containers under `restricted`.
 * `dataDir` places the server's own sandbox directory (visible inside); `home` expands `~`.
 */
export function launchNeeds(
  server: LaunchShape,
  o: { dataDir: string; home?: string },
): LaunchNeed[] {
  if (typeof server.command !== "string") return [];
  const args = server.args ?? [];
  const base = server.command.split("/").pop() ?? server.command;
  const restricted = (server.sandbox_profile ?? "restricted") === "restricted";
  const needs: LaunchNeed[] = [];
  const runner = packageRunner(base, args);
  if (runner && server.network !== true) {
    needs.push({
      kind: "network",
      detail: `${runner} fetches the package on its first start, and network is off`,
      fix: `engram mcp review ${server.name} --network`,
    });
  }
  if (!restricted) return needs;
  if (CONTAINERS.has(base)) {
    needs.push({
      kind: "standard",
      detail: `${base} needs its daemon's socket, which the restricted sandbox hides`,
      fix: `engram mcp review ${server.name} --sandbox standard`,
    });
  }
  const hidden = hostPaths(args, o.home).filter((p) =>
    !visibleInSandbox(
      { path: p, realPath: realPath(p) },
      { sandboxDir: sandboxDirOf(o.dataDir, server.name), cwd: server.cwd },
    )
  );
  if (hidden.length) {
    needs.push({
      kind: "host_path",
      detail: hidden.length === 1
        ? `argument ${hidden[0]} names a host path the restricted sandbox hides`
        : `arguments ${hidden.join(", ")} name host paths the restricted sandbox hides`,
      fix: `engram mcp review ${server.name} --sandbox standard`,
    });
  }
  return needs;
}

/** The runner as written (`npx`, `pipx run`, `deno run npm:…`), or null when nothing is fetched. */
function packageRunner(base: string, args: readonly string[]): string | null {
  if (base === "deno") {
    if (args[0] !== "run" || args.includes("--cached-only")) return null;
    const spec = args.slice(1).find((a) => !a.startsWith("-"));
    return spec !== undefined && DENO_REMOTE.test(spec) ? `deno run ${spec}` : null;
  }
  const runner = RUNNERS.find((r) => r.command === base && (!r.sub || args[0] === r.sub));
  if (!runner) return null;
  const flags = args.filter((a) => a === "-y" || a === "--yes");
  return [base, ...(runner.sub ? [runner.sub] : []), ...flags.slice(0, 1)].join(" ");
}

/** Arguments (or `--flag=VALUE` values) that are absolute or `~` paths, expanded. */
function hostPaths(args: readonly string[], home?: string): string[] {
  const env = envFrom(home ? { HOME: home } : {});
  const out: string[] = [];
  for (const arg of args) {
    const value = /^-[^=]*=/.test(arg) ? arg.slice(arg.indexOf("=") + 1) : arg;
    // Without a home to expand it, a `~` path is still the host's, and still hidden.
    if (value.startsWith("/")) out.push(value);
    else if (value === "~" || value.startsWith("~/")) {
      out.push(home ? expandHome(value, env) : value);
    }
  }
  return out;
}

function realPath(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}
