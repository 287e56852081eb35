/**
 * @module Row → record mapping for the `upstream_credentials` table, shared by the SQLite and
 * PostgreSQL adapters: the columns and their meaning are the same on both; only the SQL differs.
 */
import type {
  UpstreamAuthStatus,
  UpstreamClientKind,
  UpstreamCredentials,
  UpstreamCredentialsPatch,
} from "../../core/ports/upstream_credentials.ts";

/** An `upstream_credentials` row: `refreshable` is 0/1 on SQLite, a boolean on PostgreSQL. */
export interface CredentialsRow {
  server: string;
  key_id: string | null;
  client: string | null;
  client_kind: string | null;
  tokens: string | null;
  expires_at: string | null;
  refreshable: boolean | number;
  scope: string | null;
  required_scope: string | null;
  discovery: string | null;
  status: string;
  detail: string | null;
  logged_in_at: string | null;
  refreshed_at: string | null;
  updated_at: string;
}

/** The columns a patch may set, in the order they are written. */
export const COLUMNS = [
  "key_id",
  "client",
  "client_kind",
  "tokens",
  "expires_at",
  "refreshable",
  "scope",
  "required_scope",
  "discovery",
  "status",
  "detail",
  "logged_in_at",
  "refreshed_at",
] as const satisfies readonly (keyof UpstreamCredentialsPatch)[];

/** A credentials row as a record (discovery parsed from its JSON text). */
export function toCredentials(row: CredentialsRow): UpstreamCredentials {
  return {
    server: row.server,
    key_id: row.key_id,
    client: row.client,
    client_kind: row.client_kind as UpstreamClientKind | null,
    tokens: row.tokens,
    expires_at: row.expires_at,
    refreshable: row.refreshable === true || row.refreshable === 1,
    scope: row.scope,
    required_scope: row.required_scope,
    discovery: row.discovery === null ? null : JSON.parse(row.discovery),
    status: row.status as UpstreamAuthStatus,
    detail: row.detail,
    logged_in_at: row.logged_in_at,
    refreshed_at: row.refreshed_at,
    updated_at: row.updated_at,
  };
}
