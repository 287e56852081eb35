/** @module Finding, reading, interpolating and validating the config; applying env and flags on top. */
import { EngramError } from "../core/errors.ts";
import type { Tier } from "../core/types.ts";
import { type ConfigLocation, locateConfig } from "./config_file.ts";
import { envNamePart, type EnvSnapshot } from "./env.ts";
import {
  expandReferences,
  isDeferredReference,
  literalSecretPaths,
  type McpKeySources,
  mcpKeySources,
} from "./mcp_servers.ts";
import { dataDirectory, expandHome, joinPath } from "./paths.ts";
import { ConfigSchema, type FileConfig, LOG_LEVELS } from "./schema.ts";
import { parseYamlSource, type YamlSource } from "./yaml_source.ts";
import { isStorageUrl, resolveStorageBackend, type StorageBackend } from "./storage_backend.ts";

/** Flags that override config (flags > env > file > defaults). */
export interface ConfigFlags {
  config?: string;
  data?: string;
  tier?: string;
  brain?: string;
  logLevel?: string;
}

/** Everything a command needs to know, resolved. */
export interface ResolvedConfig {
  /** The file that was read, or null when running on defaults. */
  configFile: string | null;
  /** Which rule of the search order chose it, and the file a config would be read from. */
  configLocation: ConfigLocation;
  dataDir: string;
  dbFile: string;
  defaultBrain?: string;
  logLevel: (typeof LOG_LEVELS)[number];
  synchronous: "NORMAL" | "FULL";
  /** `storage.backend` and, for PostgreSQL, its URL (expanded) and pool settings. */
  storage: StorageBackend;
  /** `storage.search_cache_mb`: memory for searches kept until the index changes. */
  searchCacheMb: number;
  /** `storage.change_poll_ms`: how often subscriptions look for other processes' changes. */
  changePollMs: number;
  stdioTier: Tier;
  server: { host: string; port: number };
  /** The whole `server:` section (origins, limits, timeouts) for `engram serve`. */
  http: FileConfig["server"];
  /** The `mcp:` section; `sources` holds the YAML line of each key of each YAML-defined server. */
  mcp: FileConfig["mcp"] & { sources: McpKeySources };
  ingest: FileConfig["ingest"];
  providers: FileConfig["providers"];
  consolidate: FileConfig["consolidate"];
  /** NO_COLOR is set (https://no-color.org). */
  noColor: boolean;
  /** $HOME, when set: a client root of exactly this folder is too broad to follow. */
  homeDir?: string;
}

/** Loads the config (docs/configuration.md#where-the-config-is-read-from): search order, `${ENV}` interpolation, validation, precedence. */
export function loadConfig(
  flags: ConfigFlags,
  options: { env: EnvSnapshot; cwd: string },
): ResolvedConfig {
  const { env, cwd } = options;
  const location = locateConfig(flags, { env, cwd });
  const file = location.file;
  let parsed: FileConfig;
  let sources: McpKeySources = {};
  if (file) {
    const text = readConfigText(file);
    const source = parseYamlSource(file, text);
    checkSecretReferences(source);
    const interpolated = interpolate(source.value, [], source, env);
    parsed = validate(interpolated, source);
    sources = mcpKeySources(source);
  } else {
    parsed = ConfigSchema.parse({});
  }

  const tier = flags.tier ?? envVar(env, "ENGRAM_TIER") ?? parsed.stdio.tier;
  if (!["read", "write", "admin"].includes(tier)) {
    throw new EngramError(
      "invalid_argument",
      `invalid tier "${tier}"; use one of read, write, admin`,
    );
  }
  const logLevel = flags.logLevel ?? envVar(env, "ENGRAM_LOG_LEVEL") ?? parsed.log_level;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new EngramError(
      "invalid_argument",
      `invalid log level "${logLevel}"; use one of ${LOG_LEVELS.join(", ")}`,
    );
  }
  const dataDir = dataDirectory({ flag: flags.data, config: parsed.data_dir, env, cwd });
  return {
    configFile: file,
    configLocation: location,
    dataDir,
    dbFile: joinPath(dataDir, "engram.db"),
    defaultBrain: flags.brain ?? envVar(env, "ENGRAM_DEFAULT_BRAIN") ??
      parsed.default_brain,
    logLevel: logLevel as ResolvedConfig["logLevel"],
    synchronous: parsed.storage.synchronous === "full" ? "FULL" : "NORMAL",
    storage: resolveStorageBackend(parsed.storage, env),
    searchCacheMb: parsed.storage.search_cache_mb,
    changePollMs: parsed.storage.change_poll_ms,
    stdioTier: tier as Tier,
    server: { host: parsed.server.host, port: parsed.server.port },
    http: parsed.server,
    mcp: {
      ...parsed.mcp,
      allowed_file_roots: parsed.mcp.allowed_file_roots.map((r) => expandHome(r, env)),
      sources,
    },
    ingest: parsed.ingest,
    providers: parsed.providers,
    consolidate: parsed.consolidate,
    noColor: (env.get("NO_COLOR") ?? "") !== "",
    homeDir: env.get("HOME") || undefined,
  };
}

/** An ENGRAM_* override; set-but-empty counts as unset so the file and defaults still apply. */
function envVar(env: EnvSnapshot, name: string): string | undefined {
  return env.get(name) || undefined;
}

function readConfigText(file: string): string {
  try {
    return Deno.readTextFileSync(file);
  } catch (err) {
    throw new EngramError(
      "invalid_argument",
      `cannot read config ${file}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

/** Provider keys must be `${VAR}` references: a key written into the file would end up in backups and repos. */
function checkSecretReferences(source: YamlSource): void {
  const secret = literalSecretPaths(source.value)[0];
  if (secret) {
    throw new EngramError(
      "invalid_argument",
      `config ${where(source, secret)}: write the secret as an environment reference such as \${${
        envNamePart(String(secret[4]))
      }}; secrets are never stored in the config file`,
    );
  }
  const providers = (source.value as { providers?: unknown } | null)?.providers;
  if (!Array.isArray(providers)) return;
  providers.forEach((p, i) => {
    const key = (p as { api_key?: unknown } | null)?.api_key;
    if (key === undefined || key === null) return;
    if (typeof key !== "string" || !/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(key.trim())) {
      throw new EngramError(
        "invalid_argument",
        `config ${
          where(source, ["providers", i, "api_key"])
        }: write the key as an environment reference such as \${OPENAI_API_KEY}; keys are never stored in the config file`,
      );
    }
  });
}

/** Replaces `${VAR}` in every string value; `$${` is a literal `${`. A missing variable is an error with its line. */
function interpolate(
  value: unknown,
  path: (string | number)[],
  source: YamlSource,
  env: EnvSnapshot,
): unknown {
  if (typeof value === "string") {
    // Upstream servers' env and headers are expanded when that server starts (mcp_servers.ts).
    if (isDeferredReference(path)) return value;
    // storage.url is expanded only when PostgreSQL is the backend (storage_backend.ts).
    if (isStorageUrl(path)) return value;
    const expanded = expandReferences(value, env);
    const name = expanded.missing[0];
    if (name !== undefined) {
      throw new EngramError(
        "invalid_argument",
        `config ${
          where(source, path)
        }: \${${name}} is not set in the environment; export ${name} or remove the reference`,
      );
    }
    return expanded.value;
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, [...path, i], source, env));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, interpolate(v, [...path, k], source, env)]),
    );
  }
  return value;
}

function validate(value: unknown, source: YamlSource): FileConfig {
  const result = ConfigSchema.safeParse(value);
  if (result.success) return result.data;
  const lines = result.error.issues.slice(0, 5).flatMap((issue) => {
    const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
    if (issue.code === "unrecognized_keys") {
      // Point at each misspelt key and its own line, not at the parent map.
      return issue.keys.map((k) =>
        `config ${where(source, [...path, k])}: unknown key; check the spelling`
      );
    }
    return [`config ${where(source, path)}: ${issue.message}`];
  });
  throw new EngramError("invalid_argument", lines.join("\n"), { cause: result.error });
}

function where(source: YamlSource, path: (string | number)[]): string {
  const line = source.lineOf(path);
  const key = path.length ? path.join(".") : "(top level)";
  return `${source.file}${line ? `:${line}` : ""} key ${key}`;
}
