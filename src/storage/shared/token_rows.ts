/**
 * @module Row → record mapping for the `tokens` table, shared by the SQLite and PostgreSQL
 * adapters: the columns and their meaning are the same on both; only the SQL differs.
 */
import type { TokenRecord } from "../../core/ports/token_store.ts";
import type { Tier } from "../../core/types.ts";

/** The columns of a TokenRecord. */
export const RECORD_COLUMNS =
  "id, client_id, tier, brains, tools, prefix, created_at, last_used_at, revoked_at, expires_at, audience, oauth_client_id, operator";

/** A `tokens` row: `operator` is 0/1 on SQLite, a boolean on PostgreSQL. */
export interface TokenRow {
  id: string;
  client_id: string;
  tier: string;
  brains: string;
  tools: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  expires_at: string | null;
  audience: string | null;
  oauth_client_id: string | null;
  operator: boolean | number;
  token_hash?: string;
}

/** A token row as a record (brains and tools parsed from their JSON text). */
export function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    client_id: row.client_id,
    tier: row.tier as Tier,
    brains: row.brains === "*" ? "*" : JSON.parse(row.brains) as string[],
    tools: row.tools === null ? null : JSON.parse(row.tools) as string[],
    prefix: row.prefix,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
    expires_at: row.expires_at,
    audience: row.audience,
    oauth_client_id: row.oauth_client_id,
    ...(row.operator === true || row.operator === 1 ? { operator: true } : {}),
  };
}
