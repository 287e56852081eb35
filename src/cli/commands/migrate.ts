/**
 * @module `engram migrate --from SRC --to DST`: copies a whole database between a SQLite file and a
 * PostgreSQL database, either way, with a progress bar on a terminal; resumable after Ctrl-C or a
 * killed process; each table's count and checksum verified and printed at the end
 * (docs/operations.md#moving-to-postgresql). The copying itself is src/storage/migrate/.
 */
import { resolve } from "node:path";
import { loadConfig } from "../../config/load.ts";
import { EngramError } from "../../core/errors.ts";
import {
  DEFAULT_BATCH_ROWS,
  isPostgresUrl,
  migrateDatabase,
  type MigrateProgress,
  type MigrateResult,
} from "../../storage/migrate/migrate.ts";
import { type CommandSpec, configFlags, parseOrHelp } from "../args.ts";
import type { CommandContext } from "../context.ts";
import { EXIT } from "../exit_codes.ts";
import { table } from "../output.ts";
import { applyModePermissions } from "../permissions.ts";
import { terminalProgress } from "../progress.ts";

/** Usage of `engram migrate`. */
export const MIGRATE_SPEC: CommandSpec = {
  name: "migrate",
  usage: "engram migrate --from SRC --to DST [--force] [--batch-size N] [--json]",
  summary: "Copy everything a database holds (brains, documents and every version, chunks and " +
    "vectors, sessions, jobs, tokens, OAuth clients and grants, upstream servers, approvals and " +
    "credentials, the audit log and traces) from SRC to DST: one a SQLite file (engram.db), the " +
    "other a postgres:// URL, either way. DST must be empty (a fresh engram.db or database) " +
    "unless --force, which empties it first. Resumable: after Ctrl-C or a killed process, the " +
    "same command continues where it stopped. At the end each table's row count and checksum " +
    "are compared on both sides and printed. Stop every engram using SRC or DST first.",
  options: {
    from: { type: "string", help: "SRC  the database to copy: a SQLite file or a postgres:// URL" },
    to: { type: "string", help: "DST  the database to copy into: the other kind" },
    force: { type: "boolean", help: "empty DST first when it holds data (or another copy)" },
    "batch-size": {
      type: "string",
      help: `N  rows per batch, each one transaction on DST (default ${DEFAULT_BATCH_ROWS})`,
    },
    json: { type: "boolean", help: "print the result (with every table's checksums) as JSON" },
  },
  positionals: [0, 0],
};

/** The exit code of a copy stopped by a signal: 128 + its number, as shells report it. */
const SIGNAL_EXITS = { SIGINT: 130, SIGTERM: 143 } as const;

/** Copies SRC into DST and prints each table's verdict. */
export async function migrateCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const args = parseOrHelp(argv, MIGRATE_SPEC, ctx.out);
  if (!args) return EXIT.ok;
  const from = location(args.values.from, "--from", ctx.cwd);
  const to = location(args.values.to, "--to", ctx.cwd);
  const batchRows = batchSize(args.values["batch-size"]);
  const json = args.values.json === true;
  const config = loadConfig(configFlags(args.values), { env: ctx.env, cwd: ctx.cwd });
  // The ingest mode's set: no process is started (run goes); PostgreSQL needs net, the file
  // read and write.
  await applyModePermissions("ingest", config);
  const controller = new AbortController();
  let received: keyof typeof SIGNAL_EXITS | null = null;
  const listeners = (Object.keys(SIGNAL_EXITS) as (keyof typeof SIGNAL_EXITS)[]).map((sig) => {
    const listener = () => {
      received ??= sig;
      controller.abort();
    };
    Deno.addSignalListener(sig, listener);
    return () => Deno.removeSignalListener(sig, listener);
  });
  const copying = terminalProgress(ctx, "copying  ", json);
  const verifying = terminalProgress(ctx, "verifying", json);
  let result: MigrateResult;
  try {
    result = await migrateDatabase(from, to, {
      force: args.values.force === true,
      batchRows,
      signal: controller.signal,
      onProgress: (p: MigrateProgress) => {
        if (p.phase === "copying") copying.update(p.done, p.total);
        else {
          copying.done();
          verifying.update(p.done, p.total);
        }
      },
    });
  } finally {
    copying.done();
    verifying.done();
    for (const remove of listeners) remove();
  }
  if (result.status === "stopped") {
    ctx.out.warn(
      `stopped by ${
        received ?? "a signal"
      } after copying ${result.copied_rows} rows in this run; every batch copied is kept: run the same command again to continue`,
    );
    return SIGNAL_EXITS[received ?? "SIGINT"];
  }
  if (json) ctx.out.json(result);
  else printResult(ctx, result);
  if (result.sealed_logins.length > 0) {
    ctx.out.warn(
      `warning: the OAuth logins of upstream ${
        result.sealed_logins.join(", ")
      } were copied sealed with the source's secret key (ENGRAM_SECRET_KEY, or secret.key in its data directory): give every engram using ${result.to} the same key, or log in again with engram mcp auth login`,
    );
  }
  if (result.status === "mismatch") {
    const differ = result.tables.filter((t) => !t.ok).map((t) => t.table);
    throw new EngramError(
      "conflict",
      `the copy differs from the source in ${
        differ.join(", ")
      }: something wrote to the source during the copy; stop every engram using it and run engram migrate again with --force`,
    );
  }
  return EXIT.ok;
}

/** A location flag: a postgres:// URL as given, or a file path resolved against the cwd. */
function location(value: unknown, flag: string, cwd: string): string {
  if (typeof value !== "string" || value === "") {
    throw new EngramError(
      "invalid_argument",
      `engram migrate needs ${flag}: a SQLite file (engram.db) or a postgres:// URL; see: engram migrate --help`,
    );
  }
  return isPostgresUrl(value) ? value : resolve(cwd, value);
}

/** `--batch-size`, a whole number 1..100,000. */
function batchSize(value: unknown): number {
  if (value === undefined) return DEFAULT_BATCH_ROWS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) {
    throw new EngramError(
      "invalid_argument",
      `--batch-size must be a whole number from 1 to 100000, got "${value}"`,
    );
  }
  return n;
}

/** The verdict for people: one line, then a row per table. */
function printResult(ctx: CommandContext, r: MigrateResult): void {
  const copied = r.tables.reduce((n, t) => n + t.target_rows, 0);
  ctx.out.line(
    `copied ${copied} rows from ${r.from} to ${r.to}${
      r.resumed ? ` (resumed: ${r.copied_rows} copied in this run)` : ""
    }`,
  );
  ctx.out.line(table([
    ["table", "source rows", "target rows", "checksum (sha-256)", ""],
    ...r.tables.map((t) => [
      t.table,
      String(t.source_rows),
      String(t.target_rows),
      t.ok
        ? t.source_checksum.slice(0, 16)
        : `${t.source_checksum.slice(0, 16)} ≠ ${t.target_checksum.slice(0, 16)}`,
      t.ok ? "ok" : "DIFFERS",
    ]),
  ]));
  if (r.status === "complete") {
    ctx.out.line("verified: every table's row count and checksum match the source's");
  }
}
