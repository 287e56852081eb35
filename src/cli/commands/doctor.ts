/**
 * @module `engram doctor`: whether this installation is sound (docs/operations.md#corrupt-or-full-database)
 * — the config file in use, the data directory's permissions and free space, and the database:
 * SQLite's full `integrity_check` and each full-text index's own check. Exit 1 when one fails.
 */
import { statfsSync } from "node:fs";
import { configSummary } from "../../config/config_file.ts";
import { loadConfig, type ResolvedConfig } from "../../config/load.ts";
import { CORRUPT_DATABASE_FIX, toEngramError } from "../../core/errors.ts";
import type { StorageCheck } from "../../core/ports/storage.ts";
import { openSqliteStorage } from "../../storage/sqlite/sqlite_storage.ts";
import { openStorage } from "../open_storage.ts";
import { silentLogger } from "../../core/logger.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { EXIT } from "../exit_codes.ts";
import { table } from "../output.ts";
import { applyModePermissions } from "../permissions.ts";
import { describeContents, humanBytes } from "./backup.ts";

/** Usage of `engram doctor`. */
export const DOCTOR_SPEC: CommandSpec = {
  name: "doctor",
  usage: "engram doctor [--json]",
  summary:
    "Check this installation: the config file in use, the data directory's permissions and free space, and the database (SQLite's full integrity_check and each full-text index's own check). Exits 1 when a check fails; safe while engram runs. For upstream MCP servers see engram mcp doctor.",
  options: {
    json: { type: "boolean", help: "print { ok, checks: [{ name, status, detail }] } as JSON" },
  },
  positionals: [0, 0],
};

/** Below this much free space a check warns: a checkpoint may need ~40 MB of WAL at once. */
const LOW_SPACE_BYTES = 100 * 1024 * 1024;

/** One line of the report. */
interface DoctorCheck {
  name: string;
  /** `warn` does not fail the run. */
  status: "ok" | "warn" | "fail";
  detail: string;
  /** What to do about a failure, when the detail does not say it. */
  fix?: string;
}

/** Runs every check, prints them, and exits 1 when one failed. */
export async function doctorCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, DOCTOR_SPEC, ctx.out);
  if (!args) return EXIT.ok;
  const checks: DoctorCheck[] = [];
  let config: ResolvedConfig | undefined;
  try {
    config = loadConfig(configFlags(args.values), { env: ctx.env, cwd: ctx.cwd });
    checks.push({ name: "config", status: "ok", detail: configSummary(config.configLocation) });
  } catch (err) {
    checks.push({ name: "config", status: "fail", detail: toEngramError(err).message });
  }
  if (config) {
    checks.push(dataDirCheck(config.dataDir), freeSpaceCheck(config.dataDir));
    checks.push(...await databaseChecks(config));
  }
  const ok = checks.every((c) => c.status !== "fail");
  if (args.values.json) ctx.out.json({ ok, checks });
  else printReport(ctx, checks, ok);
  return ok ? EXIT.ok : EXIT.error;
}

/** The data directory: there, a directory, and writable by this user. */
function dataDirCheck(dir: string): DoctorCheck {
  const name = "data directory";
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(dir);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return { name, status: "ok", detail: `${dir} does not exist yet (created on first use)` };
    }
    return { name, status: "fail", detail: `${dir} cannot be read: ${(err as Error).message}` };
  }
  if (!info.isDirectory) {
    return { name, status: "fail", detail: `${dir} is not a directory; pass --data DIR` };
  }
  const mode = `mode ${modeOf(info)}`;
  try {
    // Creating a file is the one test that holds for root, ACLs and read-only mounts alike.
    Deno.removeSync(Deno.makeTempFileSync({ dir, prefix: ".engram-doctor-" }));
  } catch (err) {
    return {
      name,
      status: "fail",
      detail: `${dir} (${mode}) is not writable (${
        (err as Error).message
      }); fix with: chmod u+rwx ${dir}, or pass --data DIR`,
    };
  }
  return { name, status: "ok", detail: `${dir} (${mode}, writable)` };
}

/** Free space on the data directory's file system (or the nearest existing parent's). */
function freeSpaceCheck(dir: string): DoctorCheck {
  const name = "free space";
  let at = dir;
  while (!exists(at) && at.includes("/") && at !== "/") {
    at = at.slice(0, at.lastIndexOf("/")) || "/";
  }
  let free: number;
  try {
    const fs = statfsSync(at);
    free = Number(fs.bavail) * Number(fs.bsize);
  } catch (err) {
    return { name, status: "warn", detail: `unknown: ${(err as Error).message}` };
  }
  const detail = `${humanBytes(free)} free for ${at}`;
  if (free === 0) {
    return {
      name,
      status: "fail",
      detail: `${detail}: writes fail (storage_full); free space there or move it with --data`,
    };
  }
  if (free < LOW_SPACE_BYTES) {
    return { name, status: "warn", detail: `${detail}: writes may soon fail (storage_full)` };
  }
  return { name, status: "ok", detail };
}

/** The database file, whether it opens, and the full integrity checks. */
async function databaseChecks(config: ResolvedConfig): Promise<DoctorCheck[]> {
  if (config.storage.backend === "postgres") return await postgresChecks(config);
  const file = config.dbFile;
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return [{ name: "database", status: "ok", detail: `${file} not created yet (first use)` }];
    }
    return [{ name: "database", status: "fail", detail: `${file}: ${(err as Error).message}` }];
  }
  const fileCheck: DoctorCheck = (info.mode ?? 0) & 0o077
    ? {
      name: "database",
      status: "warn",
      detail: `${file} (mode ${
        modeOf(info)
      }) is readable by other users; notes are private: chmod 600 ${file}`,
    }
    : { name: "database", status: "ok", detail: `${file} (${humanBytes(info.size)})` };
  let storage;
  try {
    storage = openSqliteStorage(file, { synchronous: config.synchronous });
  } catch (err) {
    return [fileCheck, failure("open", err)];
  }
  try {
    await applyModePermissions("cli", config);
    const opened: DoctorCheck = await storage.health.contents().then(
      (c) => ({
        name: "open",
        status: "ok",
        detail: `schema ${c.schema_version}; ${describeContents(c)}`,
      }),
      (err) => failure("open", err),
    );
    const integrity = await storage.health.check({ level: "full" });
    return [fileCheck, opened, ...integrity.map(asDoctorCheck)];
  } finally {
    storage.close();
  }
}

/** PostgreSQL: whether the database opens (migrated), what it holds, and engram's own checks. */
async function postgresChecks(config: ResolvedConfig): Promise<DoctorCheck[]> {
  let storage;
  try {
    storage = await openStorage(config, { logger: silentLogger });
  } catch (err) {
    return [failure("open", err)];
  }
  try {
    await applyModePermissions("cli", config);
    const opened: DoctorCheck = await storage.health.contents().then(
      (c) => ({
        name: "open",
        status: "ok",
        detail: `PostgreSQL, schema ${c.schema_version}; ${describeContents(c)}`,
      }),
      (err) => failure("open", err),
    );
    const checks = await storage.health.check({ level: "full" });
    return [opened, ...checks.map(asDoctorCheck)];
  } finally {
    await storage.close();
  }
}

/** A storage check as a report line; damage comes with what to do about it. */
function asDoctorCheck(check: StorageCheck): DoctorCheck {
  const said = check.problems.join("; ");
  if (check.status === "ok") return { name: check.name, status: "ok", detail: "ok" };
  if (check.status === "not_run") {
    return { name: check.name, status: "fail", detail: `could not run: ${said}; try again` };
  }
  return {
    name: check.name,
    status: "fail",
    detail: `damaged: ${said}`,
    fix: CORRUPT_DATABASE_FIX,
  };
}

/** A step that threw; a corrupt file's check says what SQLite said, and the fix apart. */
function failure(name: string, err: unknown): DoctorCheck {
  const e = toEngramError(err);
  if (e.code !== "storage_corrupt") return { name, status: "fail", detail: e.message };
  const said = e.cause instanceof Error ? e.cause.message : e.message;
  return { name, status: "fail", detail: `damaged: ${said}`, fix: CORRUPT_DATABASE_FIX };
}

function printReport(ctx: CommandContext, checks: DoctorCheck[], ok: boolean): void {
  ctx.out.line(table(checks.map((c) => [c.status, c.name, c.detail])));
  const failed = checks.filter((c) => c.status === "fail").map((c) => c.name);
  ctx.out.line("");
  ctx.out.line(ok ? "all checks passed" : `failed: ${failed.join(", ")}`);
  for (const fix of new Set(checks.flatMap((c) => c.fix ?? []))) ctx.out.line(`to repair: ${fix}`);
}

/** A file's permission bits in octal, e.g. `0700`. */
function modeOf(info: Deno.FileInfo): string {
  return `0${((info.mode ?? 0) & 0o777).toString(8).padStart(3, "0")}`;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
