/**
 * @module What a storage backend hands the contract suites, and the fixtures they share. The
 * suites speak only to the ports (src/core/ports/), never to a backend's own classes, so a second
 * backend (PostgreSQL) runs the same cases by supplying another ContractBackend.
 *
 * Reopening: the audit sink may defer its writes, so the audit cases write rows, `close()` the
 * storage (which must write what is pending) and open the same database again with
 * `open({ reuse: first.location })`. A storage opened with `reuse` does not own its location:
 * disposing it only closes it, and the first one removes the location when it is disposed.
 * Disposing a storage that was already closed must be harmless.
 *
 * Failing a write midway: the unit-of-work cases need a write that fails unexpectedly (not an
 * EngramError refusal) after it has started writing. A backend that can arrange one offers
 * `failChunkInserts`; without it those cases are skipped with a printed reason.
 */
import assert from "node:assert/strict";
import { EngramError, type ErrorCode } from "../../../src/core/errors.ts";
import type { BrainStore } from "../../../src/core/ports/brain_store.ts";
import type { DocumentStore } from "../../../src/core/ports/document_store.ts";
import type { StoredOAuthClient } from "../../../src/core/ports/oauth_store.ts";
import type { NewMessage } from "../../../src/core/ports/session_store.ts";
import type { Storage } from "../../../src/core/ports/storage.ts";
import type { StoredToken } from "../../../src/core/ports/token_store.ts";
import type {
  AuditEntry,
  Brain,
  CompiledFrom,
  DocumentRecord,
  DocumentSource,
  LinkInput,
  Metadata,
  SearchQuery,
  SessionRecord,
} from "../../../src/core/types.ts";

/** A storage opened for a contract case; disposing closes it (and removes it, if it owns it). */
export interface ContractStorage extends Storage, AsyncDisposable {
  /** Where the database lives, opaque to the suites: pass it back as `reuse` to open it again. */
  readonly location: string;
}

/** How a contract case opens a storage. */
export interface ContractOpenOptions {
  /** The clock stored times follow (job leases, lock expiry, brain and audit times). */
  now?: () => Date;
  /** Open this existing database again (after `close()`), instead of a fresh empty one. */
  reuse?: string;
}

/** A storage backend under test. */
export interface ContractBackend {
  /** Prefixes every test name: `"<name> <PortName>: <behaviour>"`. */
  name: string;
  /** A fresh, empty, migrated storage (or the one at `reuse`). */
  open(options?: ContractOpenOptions): Promise<ContractStorage>;
  /**
   * Makes every later insert of a chunk whose body contains `marker` fail with an unexpected
   * error (as a full disk or a broken constraint would), after the document row was written.
   */
  failChunkInserts?(storage: ContractStorage, marker: string): Promise<void>;
}

/** The instant every contract clock starts at: far from the real time, so ignoring it shows. */
export const EPOCH = "2030-01-01T00:00:00.000Z";

/** A clock the test moves by hand (no sleeps). */
export class MovableClock {
  #ms: number;

  constructor(start: string = EPOCH) {
    this.#ms = Date.parse(start);
  }

  /** The current time, for `open({ now })`. */
  readonly now = (): Date => new Date(this.#ms);

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.#ms += ms;
  }

  /** The current time as stored (ISO). */
  iso(offsetMs = 0): string {
    return new Date(this.#ms + offsetMs).toISOString();
  }
}

/** A storage with one brain (`default`) and its clock; disposing closes and removes it. */
export interface Fixture extends AsyncDisposable {
  storage: ContractStorage;
  brain: Brain;
  clock: MovableClock;
}

/** Opens a fresh storage on a movable clock, with a brain `default`. */
export async function withBrain(backend: ContractBackend): Promise<Fixture> {
  const clock = new MovableClock();
  const storage = await backend.open({ now: clock.now });
  try {
    const brain = await newBrain(storage.brains, "default");
    return { storage, brain, clock, [Symbol.asyncDispose]: () => storage[Symbol.asyncDispose]() };
  } catch (err) {
    await storage[Symbol.asyncDispose]();
    throw err;
  }
}

/** A unique id with a type prefix. */
export function uid(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** Creates a private brain with this slug. */
export function newBrain(brains: BrainStore, slug: string): Promise<Brain> {
  return brains.createBrain({ id: uid("brn"), slug, name: slug, visibility: "private" });
}

/** Options of `writeDoc`. */
export interface DocOptions {
  /** The version's time (created_at of a new document, updated_at of every version). */
  at?: string;
  title?: string;
  metadata?: Metadata;
  headings?: string[];
  links?: LinkInput[];
  /** The document id of a new document (default: a fresh one). */
  id?: string;
  /** Default `ingest`. */
  source?: DocumentSource;
  /** What a compile records with this version. */
  provenance?: CompiledFrom;
  /** The content's checksum (default: zeros). */
  checksum?: string;
}

/**
 * Writes a version of the document at `path` whose chunks have the given bodies (a new version,
 * checked against the current one, when the path exists, forgotten or not).
 */
export async function writeDoc(
  documents: DocumentStore,
  brainId: string,
  path: string,
  bodies: string[],
  options: DocOptions = {},
): Promise<DocumentRecord> {
  const existing = await documents.findDocument(brainId, { path });
  const at = options.at ?? EPOCH;
  const content = bodies.join("\n\n");
  let offset = 0;
  return documents.writeVersion({
    document: {
      id: existing?.id ?? options.id ?? uid("doc"),
      brain_id: brainId,
      title: options.title ?? path.split("/").pop()!,
      path,
      source: options.source ?? "ingest",
      content_type: "text/markdown",
      byte_size: new TextEncoder().encode(content).length,
      checksum_sha256: options.checksum ?? "0".repeat(64),
      metadata: options.metadata ?? {},
      commit_sha: "0".repeat(40),
      created_at: existing?.created_at ?? at,
      updated_at: at,
      deleted_at: null,
    },
    content,
    chunks: bodies.map((body, ordinal) => {
      const start = offset;
      offset += body.length + 2;
      return {
        ordinal,
        heading_path: options.headings ?? [],
        body,
        start_offset: start,
        end_offset: start + body.length,
      };
    }),
    links: options.links ?? [],
    expectedVersion: existing?.version,
    ...(options.provenance ? { provenance: options.provenance } : {}),
  });
}

/** A full-text query of `brainId` for `text`: ten hits of any scope by relevance, unless `extra` says. */
export function searchQuery(
  brainId: string,
  text: string,
  extra: Partial<SearchQuery> = {},
): SearchQuery {
  return { brainId, text, topK: 10, scope: "all", sort: "relevance", ...extra };
}

/** A session record of `brainId`. */
export function sessionOf(brainId: string, id = uid("ses")): SessionRecord {
  return {
    id,
    brain_id: brainId,
    client_id: "claude",
    actor_id: null,
    started_at: EPOCH,
    ended_at: null,
    metadata: { extracted_seq: 0, nested: { a: [1, 2] } },
  };
}

/** A user message with a fresh id. */
export function message(content: string, extra: Partial<NewMessage> = {}): NewMessage {
  return { id: uid("msg"), role: "user", content, created_at: EPOCH, metadata: {}, ...extra };
}

/** An audit row of a successful tool call named `name`. */
export function auditEntry(name: string, extra: Partial<AuditEntry> = {}): AuditEntry {
  return {
    client_id: "claude",
    transport: "stdio",
    session_id: null,
    tier: "write",
    kind: "tool",
    name,
    brain_id: null,
    args_digest: "d".repeat(16),
    outcome: "ok",
    error_code: null,
    latency_ms: 12,
    ...extra,
  };
}

/** A token row (never a real secret: the hash is random). */
export function tokenOf(extra: Partial<StoredToken> = {}): StoredToken {
  return {
    id: uid("tok"),
    client_id: "ci",
    tier: "read",
    brains: "*",
    tools: null,
    prefix: "abcd",
    created_at: EPOCH,
    last_used_at: null,
    revoked_at: null,
    expires_at: null,
    audience: null,
    oauth_client_id: null,
    token_hash: crypto.randomUUID().replaceAll("-", "").repeat(2),
    ...extra,
  };
}

/** A registered public OAuth client (no secret). */
export function oauthClientOf(extra: Partial<StoredOAuthClient> = {}): StoredOAuthClient {
  return {
    client_id: uid("oac"),
    client_name: "Connector",
    redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
    token_endpoint_auth_method: "none",
    kind: "registered",
    created_at: EPOCH,
    last_used_at: null,
    grant_types: ["authorization_code", "refresh_token"],
    secret_hash: null,
    fetched_at: null,
    ...extra,
  };
}

/** Asserts `promise` rejects with an EngramError of `code` (and `cause`, and a message match). */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: ErrorCode,
  expect: { cause?: unknown; message?: RegExp } = {},
): Promise<EngramError> {
  let caught: unknown = undefined;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught !== undefined, `expected a rejection with ${code}, but it resolved`);
  assert.ok(caught instanceof EngramError, `expected EngramError ${code}, got ${caught}`);
  assert.equal(caught.code, code, caught.message);
  if ("cause" in expect) assert.equal(caught.cause, expect.cause, caught.message);
  if (expect.message) assert.match(caught.message, expect.message);
  return caught;
}

/**
 * Lets every other pending task run for `turns` macrotask turns: a caller that does not wait for
 * anything finishes within them. Not a timing sleep; nothing depends on how long it takes.
 */
export async function yieldTurns(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** A promise with its resolve function, to hold a unit of work open until the test says. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** How a promise ended: handled at once, so a rejection is reported by the case, not as uncaught. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** `promise`, settled without ever rejecting. */
export function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** The value of a settled promise, or its error thrown. */
export function valueOf<T>(settled: Settled<T>): T {
  if (!settled.ok) throw settled.error;
  return settled.value;
}

/**
 * `promise`, or a failure naming `what` if it has not settled within `ms`: a deadlock becomes a
 * failed case instead of a hung run. Nothing passes or fails on timing otherwise.
 */
export async function within<T>(promise: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Collects an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
