/**
 * @module Why a stdio server did not start, from the end of its stderr: the last lines, escaped for
 * a terminal, and the common causes recognised with their fix (docs/upstream.md#review-servers-and-doctor):
 * a host name that could not be resolved (the sandbox has no network), and a path the `restricted`
 * sandbox does not show. `doctor` prints them; `review` reuses them when a start fails.
 */
import { neutralise } from "../upstream_text.ts";

/** A recognised cause of a failed start, and what to do about it. */
export interface StartFailureCause {
  cause: "dns" | "hidden_path";
  /** What the stderr shows, in plain words. */
  detail: string;
  fix: string;
}

/** The server settings the causes depend on. */
export interface StartingServer {
  name: string;
  transport: string;
  sandbox_profile?: string;
  network?: boolean;
}

/** Lines of stderr shown at most; the latest say most about why a process stopped. */
const TAIL_LINES = 12;
/** Characters of one stderr line shown at most. */
const LINE_CHARS = 300;

/** How resolvers, npm, Node, Deno, Python and uv word a failed name lookup. */
const DNS_FAILURE =
  /ENOTFOUND|EAI_AGAIN|getaddrinfo|Temporary failure in name resolution|Name or service not known|failed to lookup address|Could not resolve host|dns error|nodename nor servname/i;

/** How Node, Deno, Python and the shell word a missing file or module, with the path if any. */
const MISSING_PATH = [
  /ENOENT[^\n]*?['"]?(\/[^\s'",)]+)/,
  /Cannot find module '([^']+)'/,
  /Module not found "?(?:file:\/\/)?([^"\s]+)"?/,
  /can't open file '([^']+)'/,
  /No such file or directory[^\n]*?['"](\/[^'"]+)['"]/,
  /(\/[^\s:'"]+): No such file or directory/,
  /No such file or directory/,
];

/**
 * The last lines of `stderr` (at most 12, each at most 300 characters), terminal-active
 * characters shown as escapes; empty lines dropped. Empty when the server wrote nothing.
 */
export function stderrTail(stderr: string, maxLines = TAIL_LINES): string[] {
  const lines = neutralise(stderr).split("\n").map((l) => l.replace(/\s+$/, ""))
    .filter((l) => l.trim() !== "");
  return lines.slice(-maxLines).map((l) =>
    l.length <= LINE_CHARS ? l : `${l.slice(0, LINE_CHARS - 1)}…`
  );
}

/** The common cause `stderr` shows for `server`, with its fix; null when none is recognised. */
export function recogniseStartFailure(
  stderr: string,
  server: StartingServer,
): StartFailureCause | null {
  if (server.transport !== "stdio") return null;
  const review = `engram mcp review ${server.name}`;
  const restricted = server.sandbox_profile === "restricted";
  if (DNS_FAILURE.test(stderr)) {
    if (restricted && !server.network) {
      return {
        cause: "dns",
        detail: "it could not resolve a host name: its sandbox has no network (network: false)",
        fix:
          `give it network (set network: true, or: ${review} --network), or prefetch what it downloads`,
      };
    }
    return {
      cause: "dns",
      detail: "it could not resolve a host name",
      fix: "check this machine's DNS and network, and that the server's host names are right",
    };
  }
  if (!restricted) return null;
  for (const pattern of MISSING_PATH) {
    const match = pattern.exec(stderr);
    if (!match) continue;
    const path = match[1] ? ` (${neutralise(match[1]).slice(0, LINE_CHARS)})` : "";
    return {
      cause: "hidden_path",
      detail:
        `it could not find a file or module${path}: the restricted sandbox shows only /usr, /bin, /lib*, its sandbox directory and its cwd`,
      fix:
        `set cwd to the directory holding it (${review} --cwd DIR), or run it outside the sandbox (${review} --sandbox standard)`,
    };
  }
  return null;
}
