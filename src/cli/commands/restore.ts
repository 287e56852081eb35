/** @module `engram restore FILE`: replace the database with a backup, then migrate it. */
import { resolve } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { restoreDatabase } from "../../storage/sqlite/backup/restore.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { EXIT } from "../exit_codes.ts";
import { applyModePermissions } from "../permissions.ts";
import { openRuntime } from "../runtime.ts";
import { describeContents } from "./backup.ts";

/** Usage of `engram restore`. */
export const RESTORE_SPEC: CommandSpec = {
  name: "restore",
  usage: "engram restore FILE [--force] [--json]",
  summary: "Replace the database with a backup written by engram backup. FILE is checked first " +
    "(a SQLite file, intact, an engram schema this version knows; an older one is migrated). " +
    "Refused while engram serve, engram stdio or another command has the database open, and " +
    "when the database already holds documents, sessions or brains besides default, unless --force.",
  options: {
    force: { type: "boolean", help: "replace a database that holds data (or is unreadable)" },
    json: { type: "boolean", help: "print what was restored as JSON" },
  },
  positionals: [1, 1],
};

/** Restores FILE over the configured database and prints what it now holds. */
export async function restoreCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, RESTORE_SPEC, ctx.out);
  if (!args) return EXIT.ok;
  const config = loadConfig(configFlags(args.values), { env: ctx.env, cwd: ctx.cwd });
  await applyModePermissions("cli", config);
  const restored = restoreDatabase(resolve(ctx.cwd, args.positionals[0]), config.dbFile, {
    force: args.values.force === true,
  });
  // The normal start-up path: migrations, pragmas, the default brain.
  const runtime = await openRuntime(config);
  let now;
  try {
    now = await runtime.health.contents();
  } finally {
    runtime.close();
  }
  const result = {
    file: restored.file,
    database: restored.database,
    replaced: restored.replaced,
    from_schema_version: restored.schema_version,
    ...now,
  };
  if (args.values.json) ctx.out.json(result);
  else {
    const schema = result.from_schema_version === result.schema_version
      ? `schema ${result.schema_version}`
      : `schema ${result.from_schema_version}, migrated to ${result.schema_version}`;
    ctx.out.line(
      `restored ${result.file} into ${result.database}: ${describeContents(result)}; ${schema}`,
    );
  }
  return EXIT.ok;
}
