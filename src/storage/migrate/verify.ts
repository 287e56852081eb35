/**
 * @module The check at the end of `engram migrate`: each table's row count and a SHA-256 over its
 * rows in key order, computed on both sides from the same canonical values (flags as booleans,
 * vectors as exact Float32 values, row ids included), so equal checksums mean equal content
 * (docs/architecture.md#postgresql-engram-migrate).
 */
import { createHash } from "node:crypto";
import type { Endpoint } from "./endpoint.ts";
import type { Columns, Row, TableSpec } from "./tables.ts";

/** One table's verdict. */
export interface TableCheck {
  table: string;
  source_rows: number;
  target_rows: number;
  /** SHA-256 of the source's rows in key order, hex. */
  source_checksum: string;
  /** SHA-256 of the target's rows in key order, hex. */
  target_checksum: string;
  /** Counts and checksums both equal. */
  ok: boolean;
}

/** Reads every row of `table` on `side` in key order, `batch` at a time. */
export async function* allRows(
  side: Endpoint,
  table: TableSpec,
  columns: Columns,
  batch: number,
): AsyncGenerator<Row[]> {
  let after = null;
  for (;;) {
    const rows = await side.read(table, columns, after, batch);
    if (rows.length > 0) yield rows;
    if (rows.length < batch) return;
    after = table.key.map((k) => rows[rows.length - 1][k]);
  }
}

/** A table's row count and checksum on one side; `onRows` hears each batch read. */
export async function tableChecksum(
  side: Endpoint,
  table: TableSpec,
  columns: Columns,
  options: { batch: number; onRows?: (rows: Row[]) => void },
): Promise<{ rows: number; checksum: string }> {
  const hash = createHash("sha256");
  let count = 0;
  for await (const rows of allRows(side, table, columns, options.batch)) {
    for (const row of rows) hash.update(JSON.stringify(columns.map((c) => row[c])) + "\n");
    count += rows.length;
    options.onRows?.(rows);
  }
  return { rows: count, checksum: hash.digest("hex") };
}

/** Compares `table` on both sides; `onRows` hears each batch of source rows read. */
export async function checkTable(
  source: Endpoint,
  target: Endpoint,
  table: TableSpec,
  options: { columns: Columns; batch: number; onRows?: (rows: Row[]) => void },
): Promise<TableCheck> {
  const from = await tableChecksum(source, table, options.columns, {
    batch: options.batch,
    onRows: options.onRows,
  });
  const to = await tableChecksum(target, table, options.columns, { batch: options.batch });
  return {
    table: table.name,
    source_rows: from.rows,
    target_rows: to.rows,
    source_checksum: from.checksum,
    target_checksum: to.checksum,
    ok: from.rows === to.rows && from.checksum === to.checksum,
  };
}
