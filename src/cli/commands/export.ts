/** @module `engram export`: write a brain out as a folder of markdown files with front matter. */
import { resolve } from "node:path";
import { exportVault, type VaultFailure } from "../../ingest/vault.ts";
import { BRAIN_OPTION, type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { EXIT } from "../exit_codes.ts";
import { terminalProgress } from "../progress.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";

/** Usage of `engram export`. */
export const EXPORT_SPEC: CommandSpec = {
  name: "export",
  usage: "engram export DIR [--brain SLUG] [--json]",
  summary: "Write every live document of a brain to DIR/<document path> as markdown with YAML " +
    "front matter: title, tags and metadata keys at the top level (as Obsidian shows them), " +
    "id, created_at and updated_at under engram:. DIR is created when " +
    "missing; existing files are overwritten. Read it back with engram import.",
  options: {
    brain: BRAIN_OPTION,
    json: { type: "boolean", help: "print the summary as JSON" },
  },
  positionals: [1, 1],
};

/** Exports the brain and prints a summary; exit 1 when a document could not be written. */
export async function exportCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, EXPORT_SPEC, ctx.out);
  if (!args) return 0;
  const dir = resolve(ctx.cwd, args.positionals[0]);
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const progress = terminalProgress(ctx, "exporting", args.values.json === true);
    const summary = await exportVault(runtime.service, CLI_CALLER, {
      brain: args.values.brain as string | undefined,
      dir,
      onProgress: progress.update,
    });
    progress.done();
    if (args.values.json) ctx.out.json(summary);
    else {
      ctx.out.line(
        `exported ${summary.documents} document${
          plural(summary.documents)
        } from brain "${summary.brain_slug}" to ${summary.dir}`,
      );
    }
    return reportFailures(ctx, summary.failed, "exported");
  });
}

/** Lists failed files on stderr; the exit code: 1 when any failed, else 0. */
export function reportFailures(ctx: CommandContext, failed: VaultFailure[], verb: string): number {
  if (failed.length === 0) return EXIT.ok;
  for (const f of failed) ctx.out.warn(`failed: ${f.file}: ${f.error}`);
  ctx.out.warn(
    `engram: ${failed.length} file${
      plural(failed.length)
    } could not be ${verb}; see the list above`,
  );
  return EXIT.error;
}

/** "s" unless exactly one. */
export function plural(n: number): string {
  return n === 1 ? "" : "s";
}
