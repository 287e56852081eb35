/**
 * @module `engram backup FILE`: a consistent copy of the database, taken while engram runs. It
 * copies the database only: when upstream OAuth logins are sealed in it under the data
 * directory's key file, it warns that the key file must be kept with the backup
 * (docs/operations.md#backup-and-restore).
 */
import { resolve } from "node:path";
import { loadConfig, type ResolvedConfig } from "../../config/load.ts";
import { SECRET_KEY_VARIABLE, secretKeySource } from "../../config/secret_key.ts";
import { silentLogger } from "../../core/logger.ts";
import type { UpstreamCredentials } from "../../core/ports/upstream_credentials.ts";
import { backupDatabase, type BackupResult } from "../../storage/sqlite/backup/backup.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { EXIT } from "../exit_codes.ts";
import { openStorage, requireSqlite } from "../open_storage.ts";
import { applyModePermissions } from "../permissions.ts";

/** Usage of `engram backup`. */
export const BACKUP_SPEC: CommandSpec = {
  name: "backup",
  usage: "engram backup FILE [--force] [--json]",
  summary: "Write a consistent copy of the whole database (every brain, document version, " +
    "session and token) to FILE, readable only by you. Safe while engram serve, engram stdio " +
    "or other commands keep writing. Put it back with engram restore FILE. The key file that " +
    "seals upstream OAuth logins (secret.key in the data directory) is not copied: when the " +
    "database holds such logins, backup warns to keep that file with the backup.",
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
  requireSqlite(
    config,
    "backup",
    "back PostgreSQL up with its own tools (pg_dump, or base backups), or copy it into a SQLite file with engram migrate",
  );
  await applyModePermissions("cli", config);
  const result = await backupDatabase(config.dbFile, resolve(ctx.cwd, args.positionals[0]), {
    force: args.values.force === true,
    synchronous: config.synchronous,
  });
  const logins = await sealedLogins(config);
  const key = secretKeySource(ctx.env, config.dataDir).where;
  const keyFile = key !== SECRET_KEY_VARIABLE;
  if (args.values.json) {
    ctx.out.json({
      ...result,
      ...(logins.length
        ? { upstream_logins: { servers: logins, secret_key: key, key_in_backup: false } }
        : {}),
    });
  } else ctx.out.line(describeBackup(result));
  // ENGRAM_SECRET_KEY is kept apart from the data on purpose; a key file sits beside it, unseen.
  if (logins.length && keyFile) {
    ctx.out.warn(
      `warning: the backup holds the OAuth ${
        logins.length === 1 ? "login of upstream server" : "logins of upstream servers"
      } ${
        logins.join(", ")
      }, sealed with the key file ${key}, which engram backup does not copy: keep that file with the backup (private, mode 600), or log in again after a restore`,
    );
  }
  return EXIT.ok;
}

/** The upstream servers whose OAuth login (tokens or client registration) is sealed in the database. */
async function sealedLogins(config: ResolvedConfig): Promise<string[]> {
  const storage = await openStorage(config, { logger: silentLogger });
  try {
    return (await storage.upstreamCredentials.listCredentials()).filter(isSealed).map((r) =>
      r.server
    );
  } finally {
    await storage.close();
  }
}

/** Whether a credentials row holds something only its key opens. */
export function isSealed(row: UpstreamCredentials): boolean {
  return row.key_id !== null && (row.tokens !== null || row.client !== null);
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
