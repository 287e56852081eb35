/**
 * @module The marketplace: a curated, offline catalogue of vetted upstream servers (the data file
 * marketplace.json beside this module), each with a pinned package version, a ready config entry,
 * the sandbox profile and network it needs, and a category. Adding one writes it like an import:
 * disabled, user_added, consent pending, unsigned — a catalogue entry is a suggestion, not a review.
 */
import { z } from "zod";
import {
  ABSOLUTE_CWD,
  type McpServerConfig,
  McpServerSchema,
} from "../../../config/mcp_servers.ts";
import { EngramError } from "../../../core/errors.ts";
import catalogue from "./marketplace.json" with { type: "json" };

const ENTRY = z.strictObject({
  name: z.string(),
  title: z.string(),
  description: z.string(),
  category: z.string(),
  registry: z.enum(["npm", "pypi"]),
  package: z.string(),
  version: z.string(),
  homepage: z.url(),
  tested: z.boolean(),
  untested_reason: z.string().optional(),
  parameters: z.record(z.string(), z.string()),
  config: z.record(z.string(), z.unknown()),
  notes: z.string(),
});

const CATALOGUE = z.strictObject({
  catalogue_version: z.literal(1),
  reviewed_at: z.string(),
  servers: z.array(ENTRY),
});

/** One catalogue entry. */
export type MarketplaceEntry = z.infer<typeof ENTRY>;

/** The catalogue, validated. */
export interface Marketplace {
  reviewed_at: string;
  servers: MarketplaceEntry[];
}

/**
 * The catalogue, validated against its schema on every call (nothing is cached at module level):
 * a command calls it once and passes the result on.
 */
export function marketplace(): Marketplace {
  return CATALOGUE.parse(catalogue);
}

/** The entry of `market` (the parsed catalogue) named `name`, or `not_found` listing the names. */
export function marketplaceEntry(market: Marketplace, name: string): MarketplaceEntry {
  const { servers } = market;
  const entry = servers.find((s) => s.name === name.toLowerCase());
  if (entry) return entry;
  throw new EngramError(
    "not_found",
    `the marketplace has no server "${name}" (it has: ${
      servers.map((s) => s.name).join(", ")
    }); see: engram mcp marketplace list`,
  );
}

/**
 * The entry's config as a server entry named `as` (default: the entry's name), with its
 * `${PARAMETER}`s filled from `values`; a missing value is `invalid_argument` naming it.
 */
export function marketplaceConfig(
  entry: MarketplaceEntry,
  options: { as?: string; values?: Record<string, string> } = {},
): McpServerConfig {
  const values = options.values ?? {};
  for (const key of Object.keys(values)) {
    if (!(key in entry.parameters)) {
      throw new EngramError(
        "invalid_argument",
        `${entry.name} takes no parameter ${key}${
          Object.keys(entry.parameters).length
            ? `; it takes: ${Object.keys(entry.parameters).join(", ")}`
            : ""
        }`,
      );
    }
  }
  const missing = Object.keys(entry.parameters).filter((k) => values[k] === undefined);
  if (missing.length) {
    throw new EngramError(
      "invalid_argument",
      `${entry.name} needs ${
        missing.map((k) => `--set ${k}=… (${entry.parameters[k]})`).join(" and ")
      }`,
    );
  }
  const fill = (v: unknown): unknown =>
    typeof v === "string"
      ? v.replace(/\$\{([A-Z_]+)\}/g, (whole, k: string) => values[k] ?? whole)
      : Array.isArray(v)
      ? v.map(fill)
      : v;
  const config = Object.fromEntries(Object.entries(entry.config).map(([k, v]) => [k, fill(v)]));
  const parsed = McpServerSchema.safeParse({
    ...config,
    name: options.as ?? entry.name,
    // The catalogue vetted the package, not this machine's launch: every launch rule still
    // applies (allowlist, signature, consent), as for an import.
    trust: "user_added",
    client_consent: "pending",
    enabled: false,
  });
  if (parsed.success) {
    const server = parsed.data;
    // From the YAML a relative cwd blocks its server; given here, it is refused at once.
    if (server.transport === "stdio" && server.cwd && !ABSOLUTE_CWD.test(server.cwd)) {
      throw new EngramError(
        "invalid_argument",
        `${entry.name} as configured is not a valid server entry: cwd must be an absolute path (or start with ~/) (check the --set values)`,
      );
    }
    return server;
  }
  // The catalogue itself is validated by its tests, so what fails here is a name or a value given.
  const issue = parsed.error.issues[0];
  throw new EngramError(
    "invalid_argument",
    `${entry.name} as configured is not a valid server entry: ${
      issue.path.join(".") || "entry"
    } ${issue.message}${issue.path[0] === "name" ? " (choose the name with --as)" : ""}${
      issue.path[0] === "cwd" ? " (check the --set values)" : ""
    }`,
  );
}
