/** @module `engram backup FILE`: a consistent copy of the database, taken while engram runs. */
import { resolve } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { backupDatabase, type BackupResult } from "../../storage/sqlite/backup/backup.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { EXIT } from "../exit_codes.ts";
import { applyModePermissions } from "../permissions.ts";

/** Usage of `engram backup`. */
export const BACKUP_SPEC: CommandSpec = {
  name: "backup",
  usage: "engram backup FILE [--force] [--json]",
  summary: "Write a consistent copy of the whole database (every brain, document version, " +
    "session and token) to FILE, readable only by you. Safe while engram serve, engram stdio " +
    "or other commands keep writing. Put it back with engram restore FILE.",
  options: {
    force: { type: "boolean", help: "overwrite FILE if it exists" },
    json: { type: "boolean", help: "print what was written as JSON" },
  },
  positionals: [1, 1],
};

/** Backs the database up to FILE and prints what was written. */
export async function backupCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, BACKUP_SPEC, ctx.out);
  if (!args) return EXIT.ok;
  const config = loadConfig(configFlags(args.values), { env: ctx.env, cwd: ctx.cwd });
  await applyModePermissions("cli", config);
  const result = await backupDatabase(config.dbFile, resolve(ctx.cwd, args.positionals[0]), {
    force: args.values.force === true,
    synchronous: config.synchronous,
  });
  if (args.values.json) ctx.out.json(result);
  else ctx.out.line(describeBackup(result));
  return EXIT.ok;
}

/** One line for people: where, how big, what it holds. */
function describeBackup(r: BackupResult): string {
  return `backed up to ${r.file} (${humanBytes(r.bytes)}): ${
    describeContents(r)
  }; schema ${r.schema_version}`;
}

/** What a database holds, for people: "2 brains, 3 documents (4 versions), 0 sessions". */
export function describeContents(
  s: { brains: number; documents: number; versions: number; sessions: number },
): string {
  return `${count(s.brains, "brain")}, ${count(s.documents, "document")} (${
    count(s.versions, "version")
  }), ${count(s.sessions, "session")}`;
}

/** "1 brain", "2 brains". */
function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/** Bytes in B, KiB, MiB or GiB with one decimal. */
export function humanBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(1)} ${units[unit]}`;
}
