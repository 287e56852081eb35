/**
 * @module PostgreSQL failures as EngramErrors: a busy or timed-out server is `busy` (worth a
 * retry), a full disk `storage_full`, damage `storage_corrupt`, an unreachable server an
 * `internal` error that names where engram looked. The server's address is for the CLI and the
 * operator log alone; remote clients are told to ask the operator (docs/tools.md#errors).
 */
import postgres from "postgres";
import { EngramError } from "../../core/errors.ts";

/** SQLSTATE codes engram tells apart (PostgreSQL's appendix A). */
const SQLSTATE = {
  diskFull: "53100",
  outOfMemory: "53200",
  tooManyConnections: "53300",
  queryCanceled: "57014",
  serializationFailure: "40001",
  deadlock: "40P01",
  lockNotAvailable: "55P03",
  dataCorrupted: "XX001",
  indexCorrupted: "XX002",
  adminShutdown: "57P01",
  cannotConnectNow: "57P03",
} as const;

/** Failures a retry may cure: the server was busy, or gave up waiting. */
const BUSY: ReadonlySet<string> = new Set([
  SQLSTATE.outOfMemory,
  SQLSTATE.tooManyConnections,
  SQLSTATE.queryCanceled,
  SQLSTATE.serializationFailure,
  SQLSTATE.deadlock,
  SQLSTATE.lockNotAvailable,
  SQLSTATE.adminShutdown,
  SQLSTATE.cannotConnectNow,
]);

/** The `code` postgres.js puts on failures of the connection itself (not of a statement). */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ETIMEDOUT",
  "EPIPE",
]);

/** Options of the translation. */
export interface TranslateOptions {
  /** The server as the operator configured it (`host:port/database`, no password). */
  server?: string;
  /** The statement timeout, named when a statement ran out of it. */
  statementTimeoutMs?: number;
}

/** `err` as an EngramError; an EngramError is returned as it is. */
export function translatePgError(err: unknown, options: TranslateOptions = {}): EngramError {
  if (err instanceof EngramError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const code = codeOf(err);
  const server = options.server ?? "the PostgreSQL server";
  if (code === SQLSTATE.queryCanceled && options.statementTimeoutMs !== undefined) {
    return new EngramError(
      "busy",
      `a statement ran longer than storage.statement_timeout_ms (${options.statementTimeoutMs} ms) and was cancelled; try again, or raise the timeout`,
      { cause: err },
    );
  }
  if (code !== undefined && BUSY.has(code)) {
    return new EngramError("busy", `PostgreSQL is busy (${message}); try again`, { cause: err });
  }
  if (code === SQLSTATE.diskFull) {
    return new EngramError(
      "storage_full",
      `the disk of ${server} is full (${message}); nothing was written and reads still work: free space there and try again`,
      {
        cause: err,
        remote:
          `the database's disk is full; nothing was written and reads still work: retry once the operator has freed space`,
      },
    );
  }
  if (code === SQLSTATE.dataCorrupted || code === SQLSTATE.indexCorrupted) {
    return new EngramError(
      "storage_corrupt",
      `${server} reports damage (${message}); restore it from your PostgreSQL backups (pg_dump, base backups) or REINDEX a damaged index`,
      {
        cause: err,
        remote: "the database reports damage; the operator must repair it: see the server log",
      },
    );
  }
  if (code !== undefined && CONNECTION_CODES.has(code)) {
    return new EngramError(
      "internal",
      `cannot reach PostgreSQL at ${server} (${message}); check storage.url and that the server is up`,
      { cause: err, remote: "the database cannot be reached; see the server log" },
    );
  }
  return new EngramError("internal", `storage error: ${message}`, {
    cause: err,
    remote: "storage error; see the server log",
  });
}

/** Marks a refusal that was made from a failed statement. */
const FROM_FAILED_STATEMENT = Symbol("engram.fromFailedStatement");

/**
 * `refusal`, marked as made from a statement that failed (a key a concurrent writer took). The
 * refusal is expected, but PostgreSQL aborted the transaction all the same, so a unit of work it
 * happens in can only roll back (connection.ts).
 */
export function afterFailedStatement(refusal: EngramError): EngramError {
  Object.defineProperty(refusal, FROM_FAILED_STATEMENT, { value: true });
  return refusal;
}

/** Whether `err` aborted the transaction it happened in. */
export function abortsTransaction(err: unknown): boolean {
  return !(err instanceof EngramError) ||
    (err as unknown as Record<symbol, unknown>)[FROM_FAILED_STATEMENT] === true;
}

/** Whether `err` is PostgreSQL's unique violation (a key taken by a concurrent writer). */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof postgres.PostgresError && err.code === "23505";
}

/** The SQLSTATE of a statement's failure, or the connection code postgres.js gives. */
function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
