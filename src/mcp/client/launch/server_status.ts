/**
 * @module What `engram mcp servers` and `doctor` say about each upstream server without connecting:
 * its launch verdict, whether it could start now, and — when blocked — the rule and the fix,
 * worded for where the server is defined (a YAML key names its file and line).
 */
import type { LaunchCheck } from "./command_rules.ts";
import { evaluateLaunch, type LaunchFacts, type LaunchVerdict } from "./launch_rules.ts";
import type { CatalogEntry } from "../upstream_catalog.ts";

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
  const checks = verdict.checks.map((c) => c.ok ? c : { ...c, fix: fixFor(entry, c) });
  const blocked = checks.find((c) => !c.ok && c.rule !== "enabled") ?? null;
  const enabled = entry.problem ? false : entry.config.enabled;
  return {
    entry,
    checks,
    readiness: !enabled ? "disabled" : blocked ? "blocked" : "ready",
    blocked,
    digest: verdict.digest,
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
