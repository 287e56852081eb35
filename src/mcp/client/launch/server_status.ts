/**
 * @module What `engram mcp servers` and `doctor` say about each upstream server without connecting:
 * its launch verdict, whether it could start now, and — when blocked — the rule and the fix,
 * worded for where the server is defined (a YAML key names its file and line), and whether a YAML
 * entry overrides an imported server of its name. A `restricted` server with `network: true` that
 * shares the host's network (no pasta here) is said to reach the host's loopback.
 */
import type { LaunchCheck } from "./command_rules.ts";
import { evaluateLaunch, type LaunchFacts, type LaunchVerdict } from "./launch_rules.ts";
import type { SandboxProbe } from "./sandbox.ts";
import { type CatalogEntry, overrideNote } from "../upstream_catalog.ts";

/** Whether a server could start now. */
export type ServerReadiness = "ready" | "blocked" | "disabled";

/** One server as the operator sees it. */
export interface ServerView {
  entry: CatalogEntry;
  /** Every launch check, fixes worded for where the server is defined. */
  checks: LaunchCheck[];
  readiness: ServerReadiness;
  /** The first failing check other than `enabled`: what to fix before it can start. */
  blocked: LaunchCheck | null;
  /** The manifest digest the launch rules computed (stdio servers whose command is one executable). */
  digest?: string;
  /** Said of a YAML entry that overrides a stored server of its name, in plain words; else null. */
  note: string | null;
  /**
   * Said of a `restricted` server with `network: true` that shares the host's network because
   * pasta cannot be had here: it can reach the host's loopback, and the fix; else null.
   */
  loopback: string | null;
}

/** Judges every server against this machine's facts (concurrently: each is independent). */
export function judgeServers(
  catalog: readonly CatalogEntry[],
  facts: LaunchFacts,
): Promise<ServerView[]> {
  return Promise.all(catalog.map((entry) => judgeServer(entry, facts)));
}

/** Judges one server. */
async function judgeServer(entry: CatalogEntry, facts: LaunchFacts): Promise<ServerView> {
  const verdict: LaunchVerdict = entry.problem
    ? {
      server: entry.config.name,
      checks: [{
        rule: "definition",
        ok: false,
        detail: entry.problem,
        fix: `remove it: engram mcp remove ${entry.config.name}, then import it again`,
      }],
      blocked: null,
    }
    : await evaluateLaunch(entry.config, facts);
  const loopback = entry.problem ? null : loopbackWarning(entry.config, facts.sandbox);
  const checks = verdict.checks.map((c) =>
    c.ok ? networkDetail(c, entry, loopback) : { ...c, fix: fixFor(entry, c) }
  );
  const blocked = checks.find((c) => !c.ok && c.rule !== "enabled") ?? null;
  const enabled = entry.problem ? false : entry.config.enabled;
  return {
    entry,
    checks,
    readiness: !enabled ? "disabled" : blocked ? "blocked" : "ready",
    blocked,
    digest: verdict.digest,
    note: overrideNote(entry),
    loopback,
  };
}

/**
 * The passing `sandbox` check of a restricted server with network says how it gets its network:
 * through pasta (without the host's loopback), or the host's own, loopback included.
 */
function networkDetail(
  check: LaunchCheck,
  entry: CatalogEntry,
  loopback: string | null,
): LaunchCheck {
  const c = entry.config;
  if (check.rule !== "sandbox" || c.transport !== "stdio") return check;
  if (c.sandbox_profile !== "restricted" || !c.network) return check;
  const how = loopback
    ? "network shared with the host, its loopback included"
    : "network of its own through pasta, without the host's loopback";
  return {
    ...check,
    detail: /network shared/.test(check.detail)
      ? check.detail.replace(/network shared/, how)
      : `${check.detail}; ${how}`,
  };
}

/** A fix that changes a key the YAML sets points at the file and line instead of a command. */
function fixFor(entry: CatalogEntry, check: LaunchCheck): string {
  const key = check.rule;
  const at = entry.yaml[key];
  if (!at || (key !== "client_consent" && key !== "enabled")) return check.fix;
  const want = key === "enabled" ? "true" : "approved";
  return `set ${key}: ${want} in ${at.file}:${at.line} (the config file wins over engram mcp ${
    key === "enabled" ? "enable" : "consent"
  })`;
}

/**
 * What to tell an operator about a `restricted` server with `network: true` that shares the
 * host's network, because pasta cannot be had here: that it can reach every service on the host's
 * loopback (engram's own HTTP port included), why, and the fix; null when that is not so.
 */
export function loopbackWarning(
  server: { name: string; transport: string; sandbox_profile?: string; network?: boolean },
  sandbox: SandboxProbe,
): string | null {
  if (server.transport !== "stdio" || server.sandbox_profile !== "restricted") return null;
  if (!server.network || !sandbox.ok || sandbox.network?.ok) return null;
  const why = sandbox.network?.reason ?? "pasta was not probed";
  const fix = sandbox.network?.fix ??
    "install passt (apt-get install passt) to give it a network of its own, or set network: false";
  return `${server.name} has network: true and shares the host's network (${why}), so it can reach every service on the host's loopback, engram's own HTTP port included; fix: ${fix}`;
}
