/** @module The ApprovalStore port over SQLite: `capability_pins` and `capability_sightings` (migration 8). */
import type {
  ApprovalKey,
  ApprovalStore,
  CapabilityApproval,
  CapabilitySighting,
  SeenCapability,
} from "../../core/ports/approval_store.ts";
import { type PinRow, toApproval } from "../shared/approval_rows.ts";
import type { Prepares } from "./database.ts";
import type { SqliteConnection } from "./sqlite_connection.ts";

const ORDER = "ORDER BY server COLLATE NOCASE, kind, name";

/** Approvals and sightings over one connection. */
export class SqliteApprovalStore implements ApprovalStore {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  listApprovals(server?: string): Promise<CapabilityApproval[]> {
    return this.#conn.read(() => {
      const rows = server === undefined
        ? this.#conn.prepare(`SELECT * FROM capability_pins ${ORDER}`).all()
        : this.#conn.prepare(`SELECT * FROM capability_pins WHERE server = ? ${ORDER}`).all(server);
      return (rows as unknown as PinRow[]).map(toApproval);
    });
  }

  findApproval(key: ApprovalKey): Promise<CapabilityApproval | null> {
    return this.#conn.read(() => findPin(this.#conn, key));
  }

  putApproval(a: CapabilityApproval): Promise<CapabilityApproval> {
    return this.#conn.write(() => {
      insertPin(this.#conn, a);
      return findPin(this.#conn, a)!;
    });
  }

  replaceApprovals(approvals: readonly CapabilityApproval[]): Promise<void> {
    return this.#conn.write(() => {
      this.#conn.prepare("DELETE FROM capability_pins").run();
      for (const a of approvals) insertPin(this.#conn, a);
    });
  }

  deleteApproval(key: ApprovalKey): Promise<boolean> {
    return this.#conn.write(() =>
      this.#conn.prepare("DELETE FROM capability_pins WHERE server = ? AND kind = ? AND name = ?")
        .run(key.server, key.kind, key.name).changes > 0
    );
  }

  listSightings(server?: string): Promise<CapabilitySighting[]> {
    return this.#conn.read(() =>
      (server === undefined
        ? this.#conn.prepare(`SELECT * FROM capability_sightings ${ORDER}`).all()
        : this.#conn.prepare(`SELECT * FROM capability_sightings WHERE server = ? ${ORDER}`).all(
          server,
        )).map((r) => ({
          ...(r as unknown as CapabilitySighting),
          definition: JSON.parse(r.definition as string),
        }))
    );
  }

  recordSightings(server: string, seen: readonly SeenCapability[], at: string): Promise<void> {
    return this.#conn.write(() => {
      const keep = new Set(seen.map((s) => `${s.kind}\u0000${s.name}`));
      const existing = this.#conn.prepare(
        "SELECT kind, name FROM capability_sightings WHERE server = ?",
      ).all(server) as { kind: string; name: string }[];
      for (const row of existing) {
        if (keep.has(`${row.kind}\u0000${row.name}`)) continue;
        this.#conn.prepare(
          "DELETE FROM capability_sightings WHERE server = ? AND kind = ? AND name = ?",
        ).run(server, row.kind, row.name);
      }
      const upsert = this.#conn.prepare(
        `INSERT INTO capability_sightings (server, kind, name, hash, definition, first_seen_at, last_seen_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (server, kind, name) DO UPDATE SET hash = excluded.hash,
           definition = excluded.definition, last_seen_at = excluded.last_seen_at`,
      );
      for (const s of seen) {
        upsert.run(server, s.kind, s.name, s.hash, JSON.stringify(s.definition), at, at);
      }
    });
  }
}

function insertPin(db: Prepares, a: CapabilityApproval): void {
  db.prepare(
    `INSERT INTO capability_pins (server, kind, name, state, pin, definition, identity, expose_tier,
       expose_as, approved_by, approved_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (server, kind, name) DO UPDATE SET state = excluded.state, pin = excluded.pin,
       definition = excluded.definition, identity = excluded.identity,
       expose_tier = excluded.expose_tier, expose_as = excluded.expose_as, approved_by = excluded.approved_by,
       approved_at = excluded.approved_at, revoked_at = excluded.revoked_at`,
  ).run(
    a.server,
    a.kind,
    a.name,
    a.state,
    a.pin,
    JSON.stringify(a.definition),
    a.identity,
    a.expose_tier,
    a.expose_as ?? null,
    a.approved_by,
    a.approved_at,
    a.revoked_at,
  );
}

function findPin(db: Prepares, key: ApprovalKey): CapabilityApproval | null {
  const row = db.prepare(
    "SELECT * FROM capability_pins WHERE server = ? AND kind = ? AND name = ?",
  ).get(key.server, key.kind, key.name) as PinRow | undefined;
  return row ? toApproval(row) : null;
}
