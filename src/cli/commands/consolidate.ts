/** @module `engram consolidate`: one consolidation pass over a brain or all brains, for cron. */
import { consolidate, type ConsolidationReport } from "../../core/sessions/consolidate.ts";
import { EngramError } from "../../core/errors.ts";
import { consolidationSummary } from "../../mcp/server/tools/consolidate.ts";
import { type CommandSpec, configFlags, parseOrHelp, usageError } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { EXIT } from "../exit_codes.ts";
import { CLI_CALLER, consolidateSettings, withRuntime } from "../runtime.ts";

/** Usage of `engram consolidate`. */
export const CONSOLIDATE_SPEC: CommandSpec = {
  name: "consolidate",
  usage: "engram consolidate [--brain SLUG | --all] [--dry-run] [--json]",
  summary:
    "Compile fact and episode summaries, promote facts that recur across sessions to stable notes, and prune old episodes. Safe from cron: no terminal needed; exits 75 when another pass holds the brain's lock.",
  options: {
    brain: { type: "string", help: "SLUG  the brain to consolidate (default: the default brain)" },
    all: { type: "boolean", help: "consolidate every brain" },
    "dry-run": { type: "boolean", help: "report what would change without changing anything" },
    json: { type: "boolean", help: "print the reports as JSON" },
  },
  positionals: [0, 0],
};

/** Runs the pass and prints the report. */
export async function consolidateCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, CONSOLIDATE_SPEC, ctx.out);
  if (!args) return 0;
  const brain = args.values.brain as string | undefined;
  const all = Boolean(args.values.all);
  if (brain !== undefined && all) {
    throw usageError(CONSOLIDATE_SPEC, "give --brain SLUG or --all, not both");
  }
  return await withRuntime(ctx, configFlags(args.values), async (runtime, config) => {
    // Without either, the default brain, as every other command (a cron line may name it).
    const brains: (string | undefined)[] = all
      ? (await runtime.service.listBrains(CLI_CALLER)).map((b) => b.slug)
      : [brain];
    const reports: ConsolidationReport[] = [];
    let busy: EngramError | null = null;
    for (const slug of brains) {
      try {
        reports.push(
          await consolidate({ service: runtime.service, locks: runtime.locks }, CLI_CALLER, {
            brain: slug,
            dryRun: Boolean(args.values["dry-run"]),
            settings: consolidateSettings(config),
          }),
        );
      } catch (err) {
        // With --all, one locked brain must not stop the others; the exit code still says so.
        if (!(err instanceof EngramError && err.code === "busy") || !all) throw err;
        busy = err;
        ctx.out.warn(`engram: busy: ${err.message}`);
      }
    }
    if (args.values.json) ctx.out.json(all ? { reports } : reports[0]);
    else {
      for (const r of reports) {
        ctx.out.line(consolidationSummary(r));
        for (const d of [...r.summaries, ...r.promoted, ...r.retired, ...r.pruned]) {
          if (d.action !== "unchanged") ctx.out.line(`  ${d.action.padEnd(9)} ${d.path}`);
        }
      }
    }
    return busy ? EXIT.busy : EXIT.ok;
  });
}
