/**
 * @module `engram mcp import FILE [--dry-run]`: another client's MCP servers (Claude Desktop,
 * Claude Code's .mcp.json, Cursor, VS Code) as disabled, untrusted, consent-pending entries in the
 * database, with literal secrets replaced by environment references, and what each launch will
 * need that the import does not give it (network, the standard sandbox), with the fix.
 */
import { resolve } from "node:path";
import type { ImportReport } from "../../../mcp/client/import/config_import.ts";
import { readImportFile } from "../../../mcp/client/import/config_import.ts";
import type { LaunchNeed } from "../../../mcp/client/import/launch_needs.ts";
import { addPendingUpstream } from "../../../mcp/client/upstream_catalog.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../../args.ts";
import type { CommandContext } from "../../context.ts";
import { withUpstreams } from "../../upstreams.ts";

/** Usage of `engram mcp import`. */
export const MCP_IMPORT_SPEC: CommandSpec = {
  name: "mcp import",
  usage: "engram mcp import FILE [--dry-run] [--json]",
  summary:
    "Import the MCP servers of another client's config (the mcpServers object of Claude Desktop, Claude Code's .mcp.json or Cursor; VS Code's servers). Imported servers start disabled, user_added and consent pending; literal env and header values become ${ENGRAM_IMPORT_<SERVER>_<KEY>} references to set. A server whose launch will need network (a package runner: npx -y, uvx, pipx run, bunx, deno run npm:…) or a host path the restricted sandbox hides is flagged with the engram mcp review command that fixes it.",
  options: {
    "dry-run": { type: "boolean", help: "show what would be imported; change nothing" },
    json: { type: "boolean", help: "print the report as JSON" },
  },
  positionals: [1, 1],
};

/** Runs `engram mcp import`. */
export async function mcpImport(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MCP_IMPORT_SPEC, ctx.out);
  if (!args) return 0;
  const file = resolve(ctx.cwd, args.positionals[0]);
  const dryRun = args.values["dry-run"] === true;
  return await withUpstreams(ctx, configFlags(args.values), { mode: "cli" }, async (u) => {
    const report = await readImportFile(file, {
      existingNames: u.catalog.map((e) => e.config.name),
      launch: { dataDir: u.config.dataDir, home: u.config.homeDir },
    });
    if (!dryRun) {
      await u.runtime.service.atomically(async () => {
        for (const s of report.servers) {
          await addPendingUpstream(u.runtime.upstreams, s.config, {
            origin: "import",
            imported_from: file,
          });
        }
      });
    }
    if (args.values.json) ctx.out.json({ ...report, dry_run: dryRun });
    else printReport(ctx, report, dryRun);
    return 0;
  });
}

function printReport(ctx: CommandContext, report: ImportReport, dryRun: boolean): void {
  const verb = dryRun ? "would import" : "imported";
  ctx.out.line(
    `${verb} ${report.servers.length} server(s) from ${report.file} (${report.source}); skipped ${report.skipped.length}`,
  );
  for (const s of report.servers) {
    const c = s.config;
    const target = c.transport === "stdio"
      ? `${c.command}${c.args.length ? ` ${c.args.map(shellWord).join(" ")}` : ""}`
      : c.url;
    ctx.out.line(`  ${c.name} (${c.transport}): ${target}`);
    for (const note of s.notes) ctx.out.line(`    note: ${note}`);
    for (const need of s.needs) {
      ctx.out.line(`    needs ${NEED_WORDS[need.kind]}: ${need.detail}; fix: ${need.fix}`);
    }
  }
  for (const s of report.skipped) ctx.out.line(`  skipped ${s.name}: ${s.reason}`);
  if (report.secrets.length) {
    ctx.out.line("");
    ctx.out.line(
      "secrets were not copied; set these environment variables before starting the servers:",
    );
    for (const s of report.secrets) {
      ctx.out.line(`  ${s.variable}  (${s.server}: ${s.field} ${s.key})`);
    }
  }
  if (report.servers.length && !dryRun) {
    ctx.out.line("");
    ctx.out.line(
      "each is disabled until reviewed: engram mcp review NAME shows what will run, signs it, starts it and approves the tools you pick (engram mcp doctor NAME shows what blocks it)",
    );
  }
}

/** Each kind of launch need, as the report names it. */
const NEED_WORDS: Record<LaunchNeed["kind"], string> = {
  network: "network",
  host_path: "the standard sandbox",
  standard: "the standard sandbox",
};

/** An argument as a shell would need it quoted, so the dry run shows the split exactly. */
function shellWord(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}
