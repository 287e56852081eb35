/**
 * @module Row → record mapping for the `upstream_servers` and `trusted_review_keys` tables, shared
 * by the SQLite and PostgreSQL adapters: the columns and their meaning are the same on both; only
 * the SQL differs.
 */
import type {
  TrustedReviewKey,
  UpstreamConsent,
  UpstreamRecord,
} from "../../core/ports/upstream_store.ts";

/** An `upstream_servers` row: `enabled` is 0/1 on SQLite, a boolean on PostgreSQL. */
export interface UpstreamRow {
  name: string;
  definition: string | null;
  origin: string | null;
  imported_from: string | null;
  enabled: boolean | number | null;
  client_consent: string | null;
  last_status: string | null;
  last_error: string | null;
  last_at: string | null;
  created_at: string;
  updated_at: string;
}

/** An upstream row as a record (the definition parsed from its JSON text). */
export function toUpstream(r: UpstreamRow): UpstreamRecord {
  return {
    name: r.name,
    definition: r.definition === null ? null : JSON.parse(r.definition),
    origin: r.origin as UpstreamRecord["origin"],
    imported_from: r.imported_from,
    enabled: r.enabled === null ? null : r.enabled === true || r.enabled === 1,
    client_consent: r.client_consent as UpstreamConsent | null,
    last: r.last_status === null
      ? null
      : { status: r.last_status, error: r.last_error, at: r.last_at! },
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** A `trusted_review_keys` row as a key, without any other column the row holds. */
export function toTrustedKey(r: TrustedReviewKey): TrustedReviewKey {
  return { key: r.key, file: r.file, added_by: r.added_by, added_at: r.added_at };
}
