/**
 * @module The audit ports over SQLite: rows are queued and written in batches by the AuditWriter
 * (never inside another caller's unit of work), and read back a page at a time for reports.
 */
import type { AuditDrops, AuditSample } from "../core/audit_report.ts";
import type { AuditReader, AuditSink } from "../core/ports/audit_log.ts";
import type { Logger } from "../core/logger.ts";
import type { AuditEntry } from "../core/types.ts";
import { auditDrops } from "./audit_drops.ts";
import { auditPage } from "./audit_samples.ts";
import { AuditWriter } from "./audit_writer.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";

/** The audit log over one connection. */
export class SqliteAuditLog implements AuditSink, AuditReader {
  readonly #conn: SqliteConnection;
  readonly #writer: AuditWriter;

  /** `options.logger` hears about audit rows that could not be written. */
  constructor(conn: SqliteConnection, options: { logger?: Logger } = {}) {
    this.#conn = conn;
    this.#writer = new AuditWriter(conn.db, conn.cached, { logger: options.logger, now: conn.now });
  }

  audit(entry: AuditEntry): Promise<void> {
    this.#writer.add(entry);
    return Promise.resolve();
  }

  async *auditSamples(since: string): AsyncIterable<AuditSample> {
    let after = 0;
    for (;;) {
      const page = await this.#conn.read(() => auditPage(this.#conn.cached, since, after));
      yield* page.samples;
      if (page.lastRowid === null) return;
      after = page.lastRowid;
    }
  }

  auditDrops(since: string): Promise<AuditDrops> {
    return this.#conn.read(() => auditDrops(this.#conn.cached, since));
  }

  /** Writes the queued rows now (on close). */
  flush(): void {
    this.#writer.flushNow();
  }
}
