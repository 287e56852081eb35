/**
 * @module Which storage backend engram runs on (docs/configuration.md#storage): the embedded SQLite
 * file, or a PostgreSQL database several `engram serve` nodes share. `storage.url` keeps its
 * `${VAR}` references through loading and is expanded only when the backend is PostgreSQL, so a
 * config naming `${DATABASE_URL}` still loads where that variable is unset and SQLite is used; a
 * password is never written into the config file itself.
 */
import { z } from "zod";
import { EngramError } from "../core/errors.ts";
import type { EnvSnapshot } from "./env.ts";
import { expandReferences } from "./mcp_servers.ts";
import { wholeNumber } from "./number_setting.ts";

/** libpq's `sslmode` names that engram's PostgreSQL client supports. */
export const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-full"] as const;

/** The backend keys of `storage:`, spread into its schema (schema.ts). */
export const StorageBackendFields = {
  backend: z.enum(["sqlite", "postgres"]).default("sqlite")
    .describe("sqlite: the engram.db file; postgres: a database several nodes share"),
  url: z.string().min(1).optional()
    .describe("The PostgreSQL URL, e.g. ${DATABASE_URL}; needed when backend is postgres"),
  pool_size: wholeNumber(1, 1000).default(10),
  statement_timeout_ms: wholeNumber(0, 3_600_000).default(30_000),
  sslmode: z.enum(SSL_MODES).optional(),
};

/** The defaults of those keys, for the section's own default. */
export const STORAGE_BACKEND_DEFAULTS = {
  backend: "sqlite",
  pool_size: 10,
  statement_timeout_ms: 30_000,
} as const;

/** The storage backend as a command opens it. */
export type StorageBackend =
  | { backend: "sqlite" }
  | {
    backend: "postgres";
    /** With its `${VAR}` references expanded. */
    url: string;
    poolSize: number;
    statementTimeoutMs: number;
    sslmode?: (typeof SSL_MODES)[number];
  };

/** The `storage:` keys this module reads, as validated. */
interface StorageKeys {
  backend: "sqlite" | "postgres";
  url?: string;
  pool_size: number;
  statement_timeout_ms: number;
  sslmode?: (typeof SSL_MODES)[number];
}

/** Whether a config path is `storage.url`, whose references loading leaves for later. */
export function isStorageUrl(path: readonly (string | number)[]): boolean {
  return path.length === 2 && path[0] === "storage" && path[1] === "url";
}

/** The backend to open: `storage.url` checked and expanded when it is PostgreSQL. */
export function resolveStorageBackend(keys: StorageKeys, env: EnvSnapshot): StorageBackend {
  if (keys.backend === "sqlite") return { backend: "sqlite" };
  if (keys.url === undefined) {
    throw new EngramError(
      "invalid_argument",
      'config storage.url: storage.backend is postgres but no url is set; add url: "${DATABASE_URL}" and export DATABASE_URL',
    );
  }
  if (literalPassword(keys.url)) {
    throw new EngramError(
      "invalid_argument",
      'config storage.url: write the password as an environment reference, such as url: "${DATABASE_URL}" or postgres://engram:${PGPASSWORD}@host/engram; passwords are never stored in the config file',
    );
  }
  const expanded = expandReferences(keys.url, env);
  const missing = expanded.missing[0];
  if (missing !== undefined) {
    throw new EngramError(
      "invalid_argument",
      `config storage.url: \${${missing}} is not set in the environment; export ${missing} or change storage.url`,
    );
  }
  if (!/^postgres(ql)?:\/\//.test(expanded.value)) {
    throw new EngramError(
      "invalid_argument",
      `config storage.url: not a PostgreSQL URL (it must start with postgres:// or postgresql://); check ${
        keys.url.includes("${") ? "the variable it names" : "the value"
      }`,
    );
  }
  return {
    backend: "postgres",
    url: expanded.value,
    poolSize: keys.pool_size,
    statementTimeoutMs: keys.statement_timeout_ms,
    ...(keys.sslmode === undefined ? {} : { sslmode: keys.sslmode }),
  };
}

/** Whether a URL as written holds a password itself (`user:password@`) rather than a reference. */
function literalPassword(url: string): boolean {
  const userinfo = /^[a-z]+:\/\/([^@/]*)@/i.exec(url)?.[1];
  if (userinfo === undefined || !userinfo.includes(":")) return false;
  const password = userinfo.slice(userinfo.indexOf(":") + 1);
  return password !== "" && !/\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(password);
}
