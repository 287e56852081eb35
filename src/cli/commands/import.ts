/** @module `engram import`: read a folder of markdown files (an Obsidian-style vault) into a brain. */
import { resolve } from "node:path";
import { checkVaultDir, importVault } from "../../ingest/vault.ts";
import { BRAIN_OPTION, type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { CLI_CALLER, withRuntime } from "../runtime.ts";
import { terminalProgress } from "../progress.ts";
import { plural, reportFailures } from "./export.ts";

/** Usage of `engram import`. */
export const IMPORT_SPEC: CommandSpec = {
  name: "import",
  usage: "engram import DIR [--brain SLUG] [--json]",
  summary: "Store every *.md under DIR (dot-folders such as .obsidian skipped) at path " +
    "/<file relative to DIR>. Front matter gives title, tags, metadata, id and timestamps; wiki " +
    "links become backlinks. Unchanged files make no new version. Exit 1 when a file failed.",
  options: {
    brain: BRAIN_OPTION,
    json: { type: "boolean", help: "print the summary as JSON" },
  },
  positionals: [1, 1],
};

/** Imports the folder and prints a summary; exit 1 when a file could not be imported. */
export async function importCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, IMPORT_SPEC, ctx.out);
  if (!args) return 0;
  const dir = resolve(ctx.cwd, args.positionals[0]);
  // A wrong folder fails before the database is opened or created.
  await checkVaultDir(dir, { create: false });
  return await withRuntime(ctx, configFlags(args.values), async (runtime) => {
    const progress = terminalProgress(ctx, "importing", args.values.json === true);
    const summary = await importVault(runtime.service, CLI_CALLER, {
      brain: args.values.brain as string | undefined,
      dir,
      onProgress: progress.update,
    });
    progress.done();
    if (args.values.json) ctx.out.json(summary);
    else {
      ctx.out.line(
        `imported ${summary.imported} of ${summary.files} file${
          plural(summary.files)
        } into brain "${summary.brain_slug}" from ${summary.dir} (${summary.unchanged} unchanged, ${summary.failed.length} failed)`,
      );
    }
    // Imported all the same: each said on stderr, and the exit code does not change.
    for (const w of summary.warnings) {
      ctx.out.warn(`warning: ${w.file}:${w.line}: ${w.message}`);
    }
    return reportFailures(ctx, summary.failed, "imported");
  });
}
