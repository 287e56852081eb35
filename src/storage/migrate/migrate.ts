/**
 * @module `engram migrate`'s work: every table copied from one backend to the other in batches, in
 * an order that keeps every foreign key, each batch committed with the copy's watermark in the
 * target, so a copy that stopped (Ctrl-C, a killed process, a lost connection) resumes where it
 * stopped; a target that holds data is refused unless `force`; at the end each table's count and
 * checksum are compared (docs/architecture.md#postgresql-engram-migrate).
 *
 * Here, not in src/cli, because it knows both schemas; in a room of its own beside the two
 * backends because it is the one module that depends on both.
 */
import { EngramError } from "../../core/errors.ts";
import type { Endpoint } from "./endpoint.ts";
import { openPostgresEndpoint } from "./postgres_endpoint.ts";
import { openSqliteEndpoint } from "./sqlite_endpoint.ts";
import { type Columns, type Row, TABLES, type TableSpec, type Watermark } from "./tables.ts";
import { checkTable, type TableCheck } from "./verify.ts";

export type { TableCheck } from "./verify.ts";

/** Rows per batch unless told otherwise. */
export const DEFAULT_BATCH_ROWS = 500;

/** Where the copy stands, for a progress bar. */
export interface MigrateProgress {
  phase: "copying" | "verifying";
  /** Rows done in this phase (copied before this run included). */
  done: number;
  total: number;
}

/** Options of a copy. */
export interface MigrateOptions {
  /** Empty a target that holds data (or an unfinished copy) and start over. */
  force?: boolean;
  /** Rows per batch (one transaction on the target each). */
  batchRows?: number;
  /** Stops the copy after the batch under way; running again resumes it. */
  signal?: AbortSignal;
  /** Hears the progress after each batch. */
  onProgress?: (progress: MigrateProgress) => void;
}

/** What a copy did. */
export interface MigrateResult {
  /** The source and target, as `SQLite FILE` or `PostgreSQL host:port/database`. */
  from: string;
  to: string;
  /** `complete`: copied and verified; `stopped`: interrupted, run again to resume; `mismatch`. */
  status: "complete" | "stopped" | "mismatch";
  /** Whether this run continued an earlier, unfinished one. */
  resumed: boolean;
  /** Rows this run copied. */
  copied_rows: number;
  /** Each table's count and checksum on both sides (empty when stopped). */
  tables: TableCheck[];
  /** Upstream servers whose OAuth login is sealed with the source's secret key. */
  sealed_logins: string[];
}

/** A copy's state in one table, kept in the target's progress record. */
interface TableState {
  after: Watermark | null;
  rows: number;
  done: boolean;
}

/** `SRC` or `DST` as given: a postgres:// URL, or a SQLite file path (resolved against `cwd`). */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** Copies everything `from` holds into `to`; each is a SQLite file path or a postgres:// URL. */
export async function migrateDatabase(
  from: string,
  to: string,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  if (isPostgresUrl(from) === isPostgresUrl(to)) {
    throw new EngramError(
      "invalid_argument",
      `engram migrate copies between SQLite and PostgreSQL, but --from and --to are both ${
        isPostgresUrl(from)
          ? "PostgreSQL (use pg_dump and pg_restore)"
          : "SQLite files (use engram backup and engram restore)"
      }`,
    );
  }
  const source = await open(from, "source");
  try {
    const target = await open(to, "target");
    try {
      return await copy(source, target, options);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

function open(location: string, role: "source" | "target"): Promise<Endpoint> {
  return isPostgresUrl(location)
    ? openPostgresEndpoint(location, role)
    : Promise.resolve(openSqliteEndpoint(location, role));
}

async function copy(
  source: Endpoint,
  target: Endpoint,
  options: MigrateOptions,
): Promise<MigrateResult> {
  const batch = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const schema = await sameSchema(source, target);
  const started = await prepareTarget(source, target, options.force === true);
  const totals = await Promise.all(TABLES.map((t) => source.count(t)));
  const total = totals.reduce((a, b) => a + b, 0);
  let done = [...started.states.values()].reduce((n, s) => n + s.rows, 0);
  let copied = 0;
  const report = (phase: MigrateProgress["phase"]) =>
    options.onProgress?.({ phase, done, total: Math.max(total, done) });
  const result = (status: MigrateResult["status"], tables: TableCheck[], sealed: string[]) => ({
    from: source.label,
    to: target.label,
    status,
    resumed: started.resumed,
    copied_rows: copied,
    tables,
    sealed_logins: sealed,
  });
  report("copying");
  for (const { table, columns: cols } of schema) {
    const state = started.states.get(table.name) ?? { after: null, rows: 0, done: false };
    while (!state.done) {
      if (options.signal?.aborted) return result("stopped", [], []);
      const rows = await source.read(table, cols, state.after, batch);
      if (rows.length > 0) state.after = table.key.map((k) => rows[rows.length - 1][k]);
      state.rows += rows.length;
      state.done = rows.length < batch;
      await target.write(table, cols, rows, { [`table:${table.name}`]: JSON.stringify(state) });
      copied += rows.length;
      done += rows.length;
      report("copying");
    }
  }
  await target.finish(TABLES);
  done = 0;
  report("verifying");
  const sealed: string[] = [];
  const tables: TableCheck[] = [];
  for (const { table, columns } of schema) {
    tables.push(
      await checkTable(source, target, table, {
        columns,
        batch,
        onRows: (rows) => {
          if (table.name === "upstream_credentials") sealed.push(...sealedLogins(rows));
          done += rows.length;
          report("verifying");
        },
      }),
    );
  }
  const ok = tables.every((t) => t.ok);
  if (ok) await target.endProgress();
  return result(ok ? "complete" : "mismatch", tables, sealed);
}

/**
 * Each table with its flag and vector columns (as PostgreSQL's schema says) and its columns, once
 * both sides are checked to hold the same tables and columns (both were migrated to this engram's
 * schema as they opened, so a difference means a table this engram does not know).
 */
async function sameSchema(
  source: Endpoint,
  target: Endpoint,
): Promise<{ table: TableSpec; columns: Columns }[]> {
  const known = new Set(TABLES.map((t) => t.name));
  for (const side of [source, target]) {
    const unknown = (await side.tableNames()).filter((n) => !known.has(n)).sort();
    if (unknown.length > 0) {
      throw new EngramError(
        "invalid_argument",
        `${side.label} holds tables this engram does not copy (${
          unknown.join(", ")
        }): it was written by a newer engram; run engram migrate from that version`,
      );
    }
  }
  const postgres = source.kind === "postgres" ? source : target;
  const out = [];
  for (const table of TABLES) {
    const [a, b] = await Promise.all([source.columns(table), target.columns(table)]);
    if (a.names.join() !== b.names.join()) {
      throw new EngramError(
        "internal",
        `table ${table.name} differs between ${source.label} (${
          a.names.join(", ")
        }) and ${target.label} (${b.names.join(", ")}); both must be at this engram's schema`,
      );
    }
    const kinds = postgres === source ? a : b;
    out.push({
      table: { ...table, booleans: kinds.booleans, vectors: kinds.vectors },
      columns: a.names,
    });
  }
  return out;
}

/**
 * Readies the target: continues an unfinished copy from the same source, or starts one in a
 * target that is empty (a lone brain `default` that holds nothing counts as empty: any engram
 * command that opened the database made it), or, with `force`, in a target emptied first.
 */
async function prepareTarget(
  source: Endpoint,
  target: Endpoint,
  force: boolean,
): Promise<{ resumed: boolean; states: Map<string, TableState> }> {
  const progress = await target.progress();
  if (progress !== null && !force) {
    const from = progress.get("source");
    if (from !== source.label) {
      throw new EngramError(
        "conflict",
        `${target.label} holds an unfinished copy from ${from}; run engram migrate again with that source to finish it, or pass --force to empty the target and start over`,
      );
    }
    const states = new Map<string, TableState>();
    for (const [key, value] of progress) {
      if (key.startsWith("table:")) states.set(key.slice(6), JSON.parse(value) as TableState);
    }
    return { resumed: true, states };
  }
  if (!force) {
    const held = await heldData(target);
    if (held.length > 0) {
      throw new EngramError(
        "conflict",
        `${target.label} is not empty (${
          held.join(", ")
        }); pass --force to empty it and copy into it, or choose an empty database`,
      );
    }
  }
  await target.empty(TABLES);
  await target.startProgress({ source: source.label });
  return { resumed: false, states: new Map() };
}

/** What the target holds, as `table: rows`, leaving out a lone empty brain `default`. */
async function heldData(target: Endpoint): Promise<string[]> {
  const counts = await Promise.all(TABLES.map(async (t) => [t, await target.count(t)] as const));
  const held = counts.filter(([, n]) => n > 0);
  if (held.length === 1 && held[0][0].name === "brains" && held[0][1] === 1) {
    const brains = TABLES.find((t) => t.name === "brains")!;
    const [only] = await target.read(brains, (await target.columns(brains)).names, null, 1);
    if (only?.slug === "default") return [];
  }
  return held.map(([t, n]) => `${t.name}: ${n}`);
}

/** The servers of credential rows holding a login sealed with a secret key. */
function sealedLogins(rows: readonly Row[]): string[] {
  return rows.filter((r) => r.key_id !== null && (r.tokens !== null || r.client !== null))
    .map((r) => String(r.server));
}
