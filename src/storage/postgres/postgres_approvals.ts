/**
 * @module The ApprovalStore port over PostgreSQL: `capability_pins` and `capability_sightings`,
 * keyed by server (without regard to ASCII case, as SQLite's NOCASE: `engram_fold`), kind and name.
 */
import type {
  ApprovalKey,
  ApprovalStore,
  ApprovedKind,
  CapabilityApproval,
  CapabilitySighting,
  SeenCapability,
} from "../../core/ports/approval_store.ts";
import { type PinRow, toApproval } from "../shared/approval_rows.ts";
import type { PostgresConnection, Queries } from "./connection.ts";

/** By server without case, then kind and name by code point, as the SQLite store lists them. */
const ORDER = `ORDER BY engram_fold(server), kind COLLATE "C", name`;
/** The rows of one server, compared without case. */
const OF_SERVER = "WHERE engram_fold(server) = engram_fold($1)";
/** One capability's row. */
const KEY = "engram_fold(server) = engram_fold($1) AND kind = $2 AND name = $3";

/** Approvals and sightings over one pool. */
export class PostgresApprovalStore implements ApprovalStore {
  readonly #conn: PostgresConnection;

  constructor(conn: PostgresConnection) {
    this.#conn = conn;
  }

  listApprovals(server?: string): Promise<CapabilityApproval[]> {
    return this.#conn.read(async (sql) => {
      const rows = server === undefined
        ? await sql.unsafe<PinRow[]>(`SELECT * FROM capability_pins ${ORDER}`)
        : await sql.unsafe<PinRow[]>(`SELECT * FROM capability_pins ${OF_SERVER} ${ORDER}`, [
          server,
        ]);
      return rows.map(toApproval);
    });
  }

  findApproval(key: ApprovalKey): Promise<CapabilityApproval | null> {
    return this.#conn.read((sql) => findPin(sql, key));
  }

  putApproval(a: CapabilityApproval): Promise<CapabilityApproval> {
    return this.#conn.write(async (sql) => {
      await insertPin(sql, a);
      return (await findPin(sql, a))!;
    });
  }

  replaceApprovals(approvals: readonly CapabilityApproval[]): Promise<void> {
    return this.#conn.write(async (sql) => {
      await sql`DELETE FROM capability_pins`;
      for (const a of approvals) await insertPin(sql, a);
    });
  }

  deleteApproval(key: ApprovalKey): Promise<boolean> {
    return this.#conn.write(async (sql) =>
      (await sql.unsafe(`DELETE FROM capability_pins WHERE ${KEY}`, [
        key.server,
        key.kind,
        key.name,
      ])).count > 0
    );
  }

  listSightings(server?: string): Promise<CapabilitySighting[]> {
    return this.#conn.read(async (sql) => {
      const rows = server === undefined
        ? await sql.unsafe(`SELECT * FROM capability_sightings ${ORDER}`)
        : await sql.unsafe(`SELECT * FROM capability_sightings ${OF_SERVER} ${ORDER}`, [server]);
      return rows.map((r) => ({
        server: r.server as string,
        kind: r.kind as ApprovedKind,
        name: r.name as string,
        hash: r.hash as string,
        definition: JSON.parse(r.definition as string),
        first_seen_at: r.first_seen_at as string,
        last_seen_at: r.last_seen_at as string,
      }));
    });
  }

  recordSightings(server: string, seen: readonly SeenCapability[], at: string): Promise<void> {
    return this.#conn.write(async (sql) => {
      const keep = new Set(seen.map((s) => `${s.kind}\u0000${s.name}`));
      const existing = await sql.unsafe<{ kind: string; name: string }[]>(
        `SELECT kind, name FROM capability_sightings ${OF_SERVER}`,
        [server],
      );
      for (const row of existing) {
        if (keep.has(`${row.kind}\u0000${row.name}`)) continue;
        await sql.unsafe(`DELETE FROM capability_sightings WHERE ${KEY}`, [
          server,
          row.kind,
          row.name,
        ]);
      }
      for (const s of seen) {
        await sql`
          INSERT INTO capability_sightings (server, kind, name, hash, definition, first_seen_at,
            last_seen_at)
          VALUES (${server}, ${s.kind}, ${s.name}, ${s.hash}, ${JSON.stringify(s.definition)},
            ${at}, ${at})
          ON CONFLICT (engram_fold(server), kind, name) DO UPDATE SET hash = excluded.hash,
            definition = excluded.definition, last_seen_at = excluded.last_seen_at`;
      }
    });
  }
}

async function insertPin(sql: Queries, a: CapabilityApproval): Promise<void> {
  await sql`
    INSERT INTO capability_pins (server, kind, name, state, pin, definition, identity,
      expose_tier, expose_as, approved_by, approved_at, revoked_at)
    VALUES (${a.server}, ${a.kind}, ${a.name}, ${a.state}, ${a.pin}, ${
    JSON.stringify(a.definition)
  },
      ${a.identity}, ${a.expose_tier}, ${a.expose_as ?? null}, ${a.approved_by}, ${a.approved_at},
      ${a.revoked_at})
    ON CONFLICT (engram_fold(server), kind, name) DO UPDATE SET state = excluded.state,
      pin = excluded.pin, definition = excluded.definition, identity = excluded.identity,
      expose_tier = excluded.expose_tier, expose_as = excluded.expose_as,
      approved_by = excluded.approved_by, approved_at = excluded.approved_at,
      revoked_at = excluded.revoked_at`;
}

async function findPin(sql: Queries, key: ApprovalKey): Promise<CapabilityApproval | null> {
  const [row] = await sql.unsafe<PinRow[]>(`SELECT * FROM capability_pins WHERE ${KEY}`, [
    key.server,
    key.kind,
    key.name,
  ]);
  return row ? toApproval(row) : null;
}
