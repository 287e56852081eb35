/**
 * @module `engram restore FILE`: replace the database with a backup, then migrate it. A backup
 * holds the database only: the upstream OAuth logins sealed under a key other than the one in use
 * are named, each with its fix (docs/operations.md#backup-and-restore).
 */
import { resolve } from "node:path";
import { loadConfig } from "../../config/load.ts";
import {
  SECRET_KEY_FILE,
  SECRET_KEY_VARIABLE,
  type SecretKeySource,
  secretKeySource,
} from "../../config/secret_key.ts";
import type { UpstreamCredentials } from "../../core/ports/upstream_credentials.ts";
import { loginCommand } from "../../mcp/client/oauth/oauth_errors.ts";
import { SecretBox } from "../../mcp/client/oauth/secret_box.ts";
import { restoreDatabase } from "../../storage/sqlite/backup/restore.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { EXIT } from "../exit_codes.ts";
import { requireSqlite } from "../open_storage.ts";
import { applyModePermissions } from "../permissions.ts";
import { openRuntime } from "../runtime.ts";
import { describeContents, isSealed } from "./backup.ts";

/** Usage of `engram restore`. */
export const RESTORE_SPEC: CommandSpec = {
  name: "restore",
  usage: "engram restore FILE [--force] [--json]",
  summary: "Replace the database with a backup written by engram backup. FILE is checked first " +
    "(a SQLite file, intact, an engram schema this version knows; an older one is migrated). " +
    "Refused while engram serve, engram stdio or another command has the database open, and " +
    "when the database already holds documents, sessions or brains besides default, unless --force. " +
    "Upstream OAuth logins sealed with another secret key than the one in use are named, with the fix: " +
    "bring that key back (the key file secret.key, or ENGRAM_SECRET_KEY), or log in again.",
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
  requireSqlite(
    config,
    "restore",
    "restore PostgreSQL with its own tools (pg_restore or psql, from a pg_dump), or copy an engram backup into it with engram migrate",
  );
  await applyModePermissions("cli", config);
  const restored = restoreDatabase(resolve(ctx.cwd, args.positionals[0]), config.dbFile, {
    force: args.values.force === true,
  });
  // The normal start-up path: migrations, pragmas, the default brain.
  const runtime = await openRuntime(config);
  let now;
  let locked;
  try {
    now = await runtime.health.contents();
    locked = await loginsNeedingKey(
      await runtime.upstreamCredentials.listCredentials(),
      secretKeySource(ctx.env, config.dataDir),
    );
  } finally {
    await runtime.close();
  }
  const result = {
    file: restored.file,
    database: restored.database,
    replaced: restored.replaced,
    from_schema_version: restored.schema_version,
    ...now,
    logins_needing_key: locked,
  };
  if (args.values.json) ctx.out.json(result);
  else {
    const schema = result.from_schema_version === result.schema_version
      ? `schema ${result.schema_version}`
      : `schema ${result.from_schema_version}, migrated to ${result.schema_version}`;
    ctx.out.line(
      `restored ${result.file} into ${result.database}: ${describeContents(result)}; ${schema}`,
    );
    for (const l of locked) {
      ctx.out.line(
        `the OAuth login of upstream "${l.server}" needs key ${l.key_id} (${l.key_in_use}): ${l.fix}`,
      );
    }
  }
  return EXIT.ok;
}

/** A restored login that the key in use cannot open. */
interface LockedLogin {
  server: string;
  /** The id of the key that sealed it. */
  key_id: string;
  /** The key in use, in words: its id and where it comes from, or why there is none. */
  key_in_use: string;
  fix: string;
}

/**
 * The sealed logins of `rows` whose key is not the one `keys` gives (absent, or another): a
 * backup carries the database, never the key file.
 */
async function loginsNeedingKey(
  rows: readonly UpstreamCredentials[],
  keys: SecretKeySource,
): Promise<LockedLogin[]> {
  const sealed = rows.filter(isSealed);
  if (sealed.length === 0) return [];
  let keyId: string | null = null;
  let inUse: string;
  try {
    const key = await keys.read();
    keyId = key ? (await SecretBox.fromKey(key.bytes)).keyId : null;
    inUse = key
      ? `the key in use is ${keyId}, from ${keys.where}`
      : `no key is in use: ${keys.where} does not exist`;
  } catch (error) {
    inUse = `the key in use cannot be read: ${(error as Error).message}`;
  }
  return sealed.filter((r) => r.key_id !== keyId).map((r) => ({
    server: r.server,
    key_id: r.key_id!,
    key_in_use: inUse,
    fix:
      `bring key ${r.key_id} back (the key file ${SECRET_KEY_FILE} in the data directory, or ${SECRET_KEY_VARIABLE}), or log in again with: ${
        loginCommand(r.server)
      }`,
  }));
}
