/**
 * @module The upstream servers engram knows, as one list: those the YAML defines and those the
 * operator imported (or added from the marketplace) into the database, each with the operator's
 * state applied. Where the YAML sets a key, the YAML wins, and a command that would change that
 * key refuses, naming the file and line; keys the YAML leaves out take the database's state. A YAML
 * entry named like an imported server overrides it whole: the import's definition, signature and
 * state are set aside (docs/upstream.md#editing-a-stored-server).
 */
import {
  type KeySource,
  type McpKeySources,
  type McpServerConfig,
  McpServerSchema,
} from "../../config/mcp_servers.ts";
import { EngramError } from "../../core/errors.ts";
import type {
  UpstreamConsent,
  UpstreamOrigin,
  UpstreamRecord,
  UpstreamStore,
} from "../../core/ports/upstream_store.ts";

/** Where a server's definition comes from. */
export type ServerOrigin = "yaml" | "import" | "marketplace";

/** One server as engram will treat it. */
export interface CatalogEntry {
  /** The effective entry: the definition with the operator's state applied. */
  config: McpServerConfig;
  origin: ServerOrigin;
  /** The file and line of each key the YAML sets (empty for database servers). */
  yaml: Record<string, KeySource>;
  /** The operator's row, if any (state, last status, import details). */
  state: UpstreamRecord | null;
  /** Why the stored definition cannot be used, when it no longer validates. */
  problem?: string;
  /** A YAML entry only: the stored (imported or marketplace) server of its name that it overrides. */
  overrides?: UpstreamOrigin;
}

/** The `mcp:` settings the catalog reads. */
export interface CatalogSettings {
  mcp_servers: readonly McpServerConfig[];
  sources: McpKeySources;
}

/** Keys the operator's commands change. */
type StateKey = "enabled" | "client_consent";

/** Every known server, YAML ones first in file order, then database ones by name. */
export async function loadCatalog(
  mcp: CatalogSettings,
  store: Pick<UpstreamStore, "listUpstreams">,
): Promise<CatalogEntry[]> {
  const rows = await store.listUpstreams();
  const byName = new Map(rows.map((r) => [r.name.toLowerCase(), r]));
  const entries: CatalogEntry[] = mcp.mcp_servers.map((server) => {
    const yaml = mcp.sources[server.name] ?? {};
    const state = byName.get(server.name.toLowerCase()) ?? null;
    if (state?.definition) {
      // The operator's consent and enabling were given to the imported definition, not this one.
      return { config: server, origin: "yaml", yaml, state, overrides: state.origin ?? "import" };
    }
    return { config: applyState(server, state, yaml), origin: "yaml", yaml, state };
  });
  const yamlNames = new Set(mcp.mcp_servers.map((s) => s.name.toLowerCase()));
  for (const row of rows) {
    // A YAML server of the same name wins; its row then holds state only.
    if (row.definition === null || yamlNames.has(row.name.toLowerCase())) continue;
    entries.push(storedEntry(row));
  }
  return entries;
}

/** The entry named `name` (compared without case), or `not_found` naming the list command. */
export function findEntry(catalog: readonly CatalogEntry[], name: string): CatalogEntry {
  const entry = catalog.find((e) => e.config.name.toLowerCase() === name.toLowerCase());
  if (entry) return entry;
  const names = catalog.map((e) => e.config.name);
  throw new EngramError(
    "not_found",
    `no upstream server named "${name}"${
      names.length ? ` (known: ${names.join(", ")})` : ""
    }; list them with: engram mcp servers`,
  );
}

/**
 * What `engram mcp servers`, `doctor` and `review` say of a YAML entry that overrides a stored
 * server of its name; null for any other entry.
 */
export function overrideNote(entry: CatalogEntry): string | null {
  if (!entry.overrides) return null;
  const at = entry.yaml.name;
  const file = at ? `${at.file}:${at.line}` : "the config file";
  const stored = entry.overrides === "marketplace"
    ? "the one added from the marketplace"
    : "the imported one";
  return `the entry in ${file} overrides ${stored}; its signature and state no longer apply`;
}

/**
 * Changes `enabled` or consent of a server, unless its YAML sets that key: then `conflict` names
 * the file and line to edit instead. A YAML entry that overrides an imported server is refused
 * too: the stored state belongs to the import (set the key in the file, or remove the import).
 */
export async function changeState(
  entry: CatalogEntry,
  store: Pick<UpstreamStore, "setUpstreamState">,
  patch: { enabled?: boolean; client_consent?: UpstreamConsent },
): Promise<UpstreamRecord> {
  const note = overrideNote(entry);
  if (note) {
    throw new EngramError(
      "conflict",
      `${note}; set ${
        Object.keys(patch).join(" and ")
      } in that entry, or drop the import first with: engram mcp remove ${entry.config.name}`,
    );
  }
  for (const key of Object.keys(patch) as StateKey[]) {
    const at = entry.yaml[key];
    if (at) {
      throw new EngramError(
        "conflict",
        `${key} of server "${entry.config.name}" is set in ${at.file}:${at.line}, and the config file wins; change it there`,
      );
    }
  }
  return await store.setUpstreamState(entry.config.name, patch);
}

/**
 * Stores an imported or marketplace server for review: disabled and consent pending. The
 * operator's state is kept apart from the definition, so enable and consent change only the state.
 */
export async function addPendingUpstream(
  store: Pick<UpstreamStore, "addUpstream">,
  config: McpServerConfig,
  source: { origin: UpstreamOrigin; imported_from: string | null },
): Promise<UpstreamRecord> {
  const { name, enabled: _e, client_consent: _c, ...definition } = config;
  return await store.addUpstream({
    name,
    definition,
    origin: source.origin,
    imported_from: source.imported_from,
    enabled: false,
    client_consent: "pending",
  });
}

/** A YAML server with the database's state for the keys the YAML leaves out. */
function applyState(
  server: McpServerConfig,
  state: UpstreamRecord | null,
  yaml: Record<string, KeySource>,
): McpServerConfig {
  if (!state) return server;
  return {
    ...server,
    ...(!yaml.enabled && state.enabled !== null ? { enabled: state.enabled } : {}),
    ...(!yaml.client_consent && state.client_consent !== null
      ? { client_consent: state.client_consent }
      : {}),
  };
}

/** An imported or marketplace server from its row. */
function storedEntry(row: UpstreamRecord): CatalogEntry {
  const origin = row.origin ?? "import";
  const parsed = McpServerSchema.safeParse({ ...row.definition, name: row.name });
  if (!parsed.success) {
    // Kept in the list, and blocked: one bad row must not hide the others.
    return {
      config: {
        name: row.name,
        transport: "http",
        url: "http://invalid.invalid/",
        headers: {},
        client_consent: "pending",
        trust: "user_added",
        enabled: false,
      } as McpServerConfig,
      origin,
      yaml: {},
      state: row,
      problem: `its stored definition is no longer valid (${
        parsed.error.issues[0]?.message ?? "invalid"
      }); remove it and import it again`,
    };
  }
  return {
    config: applyState(parsed.data, row, {}),
    origin,
    yaml: {},
    state: row,
  };
}
