/**
 * @module What the memory pages and their API do, each as the signed-in token: search with the
 * console's filters, a document with its versions and backlinks, a diff of two versions, edit,
 * forget and restore, the timeline, a brain's overview. One function per action, shared by the
 * HTML pages and `/console/api/` so both answer the same (docs/console.md#memory).
 */
import { diffLines } from "diff";
import { EngramError } from "../../core/errors.ts";
import type {
  Backlink,
  Brain,
  BrainStats,
  DocumentRecord,
  DocumentWithProvenance,
  SourcedHit,
  TagCount,
  TimelineEntry,
  WrittenRecord,
} from "../../core/types.ts";
import type { ConsoleActor } from "./console_actor.ts";

/** The filters the search page adds to memory_search, applied to its hits. */
export interface SearchFilters {
  query: string;
  tag?: string;
  /** A path prefix. */
  path?: string;
  source?: string;
  /** Updated at or after (a date or time). */
  since?: string;
  /** Updated before the end of (a date or time). */
  until?: string;
}

/** Hits memory_search is asked for, so filters still leave a page of them: its maximum. */
const FILTERED_TOP_K = 100;
/** Versions a document page lists (the newest); older ones are reached by number. */
export const VERSIONS_LISTED = 30;

/** The brain of a page, as the token may see it (`no_brain` when it may not). */
export function brainOf(actor: ConsoleActor, slug: string): Promise<Brain> {
  return actor.deps.service.brain(actor.caller, slug);
}

/**
 * The brains the token may see: the picker every page starts from, so it stands on no tool a
 * token's tools list could leave out.
 */
export function listBrains(actor: ConsoleActor): Promise<Brain[]> {
  return actor.action(
    "console_brains",
    { tier: "read", args: {} },
    () => actor.deps.service.listBrains(actor.caller),
  );
}

/**
 * A brain's overview: its statistics, tags and latest changes; a part whose tool the token's tools
 * list leaves out is null.
 */
export async function brainOverview(
  actor: ConsoleActor,
  brain: Brain,
): Promise<{ stats: BrainStats | null; tags: TagCount[] | null; recent: TimelineEntry[] | null }> {
  const part = <T>(tool: string, args: Record<string, unknown>, pick: (r: never) => T) =>
    actor.allows(tool)
      ? actor.tool<never>(tool, { brain: brain.id, ...args }).then(pick)
      : Promise.resolve(null);
  return {
    stats: await part("memory_stats", {}, (r: BrainStats) => r),
    tags: await part("memory_tags", {}, (r: { items: TagCount[] }) => r.items),
    recent: await part(
      "memory_timeline",
      { limit: 10 },
      (r: { items: TimelineEntry[] }) => r.items,
    ),
  };
}

/** Search with the console's filters. */
export async function search(
  actor: ConsoleActor,
  brain: Brain,
  filters: SearchFilters,
): Promise<{ hits: SourcedHit[]; took_ms: number; filtered: boolean }> {
  const filtered = Boolean(
    filters.tag || filters.path || filters.source || filters.since || filters.until,
  );
  const r = await actor.tool<{ hits: SourcedHit[]; took_ms: number }>("memory_search", {
    query: filters.query,
    brain: brain.id,
    top_k: filtered ? FILTERED_TOP_K : 20,
  });
  const since = filters.since ? timeOf(filters.since, "since", false) : null;
  const until = filters.until ? timeOf(filters.until, "until", true) : null;
  const hits = r.hits.filter((h) =>
    (!filters.tag || tagsOf(h.metadata.tags).includes(filters.tag)) &&
    (!filters.path || h.path.startsWith(filters.path)) &&
    (!filters.source || h.source === filters.source) &&
    (!since || h.updated_at >= since) &&
    (!until || h.updated_at < until)
  );
  return { hits: hits.slice(0, 20), took_ms: r.took_ms, filtered };
}

/** The tags of a document's metadata (`tags` is comma-joined). */
export function tagsOf(value: unknown): string[] {
  return typeof value === "string" && value !== ""
    ? value.split(",").map((t) => t.trim()).filter(Boolean)
    : [];
}

/** A date (`2026-05-01`) or RFC 3339 time as ISO; a bare date's end when `end`. */
function timeOf(text: string, field: string, end: boolean): string {
  const bare = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const at = new Date(bare ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(at.getTime())) {
    throw new EngramError(
      "invalid_argument",
      `${field} "${text}" is not a date (2026-05-01) or a time (2026-05-01T12:00:00Z)`,
    );
  }
  if (bare && end) at.setUTCDate(at.getUTCDate() + 1);
  return at.toISOString();
}

/** One version in a document's history. */
export interface VersionEntry {
  version: number;
  title: string;
  updated_at: string;
  commit_sha: string;
  byte_size: number;
}

/** A document (at a version, current when omitted) with its history and backlinks. */
export async function documentView(
  actor: ConsoleActor,
  brain: Brain,
  o: { id: string; version?: number },
): Promise<{ doc: DocumentWithProvenance; versions: VersionEntry[]; backlinks: Backlink[] }> {
  const doc = await actor.tool<DocumentWithProvenance>("memory_get", {
    brain: brain.id,
    id: o.id,
    ...(o.version !== undefined ? { version: o.version } : {}),
  });
  const backlinks = actor.allows("memory_backlinks")
    ? (await actor.tool<{ items: Backlink[] }>("memory_backlinks", { brain: brain.id, id: o.id }))
      .items
    : [];
  const versions = await versionsOf(actor, brain, o.id);
  return { doc, versions, backlinks };
}

/** The newest VERSIONS_LISTED versions of a live document, newest first. */
export function versionsOf(
  actor: ConsoleActor,
  brain: Brain,
  id: string,
): Promise<VersionEntry[]> {
  return actor.action("console_versions", {
    tier: "read",
    args: { brain: brain.id, id },
    uses: "memory_get",
  }, async () => {
    const d = actor.deps.service;
    const current = await d.get(actor.caller, { brain: brain.id, id });
    const out: VersionEntry[] = [];
    for (let v = current.version; v >= 1 && out.length < VERSIONS_LISTED; v--) {
      const at = v === current.version
        ? current
        : await d.get(actor.caller, { brain: brain.id, id, version: v });
      out.push({
        version: at.version,
        title: at.title,
        updated_at: at.updated_at,
        commit_sha: at.commit_sha,
        byte_size: at.byte_size,
      });
    }
    return out;
  }, () => brain.id);
}

/** One run of a line diff: lines only in the old version, only in the new, or in both. */
export interface DiffPart {
  kind: "removed" | "added" | "same";
  text: string;
}

/** The line diff of two versions of a document. */
export function versionDiff(
  actor: ConsoleActor,
  brain: Brain,
  o: { id: string; from: number; to: number },
): Promise<{ from: DocumentWithProvenance; to: DocumentWithProvenance; parts: DiffPart[] }> {
  return actor.action("console_diff", {
    tier: "read",
    args: { brain: brain.id, ...o },
    uses: "memory_get",
  }, async () => {
    const d = actor.deps.service;
    const from = await d.get(actor.caller, { brain: brain.id, id: o.id, version: o.from });
    const to = await d.get(actor.caller, { brain: brain.id, id: o.id, version: o.to });
    const parts: DiffPart[] = diffLines(from.content, to.content).map((c) => ({
      kind: c.added ? "added" : c.removed ? "removed" : "same",
      text: c.value,
    }));
    return { from, to, parts };
  }, () => brain.id);
}

/** What an edit may change. */
export interface DocumentEdit {
  content?: string;
  title?: string;
  tags?: string[];
}

/** Edits a document (memory_update): a real change is a new version. */
export function editDocument(
  actor: ConsoleActor,
  brain: Brain,
  o: { id: string; edit: DocumentEdit },
): Promise<WrittenRecord> {
  return actor.tool<WrittenRecord>("memory_update", { brain: brain.id, id: o.id, ...o.edit });
}

/** Forgets a document (memory_forget). */
export function forgetDocument(
  actor: ConsoleActor,
  brain: Brain,
  id: string,
): Promise<DocumentRecord> {
  return actor.tool<DocumentRecord>("memory_forget", { brain: brain.id, id });
}

/**
 * Brings a forgotten document back: its last version written again at its path, as
 * memory_remember of the same path would (docs/tools.md#memory_forget).
 */
export function restoreDocument(
  actor: ConsoleActor,
  brain: Brain,
  id: string,
): Promise<WrittenRecord> {
  return actor.action("console_restore", {
    tier: "write",
    args: { brain: brain.id, id },
    uses: "memory_remember",
  }, async () => {
    const d = actor.deps.service;
    const gone = await d.readForgotten(brain, { id });
    if (!gone) {
      const live = await d.findLive(brain, { id });
      throw new EngramError(
        live ? "conflict" : "not_found",
        live
          ? `document ${live.path} is not forgotten; nothing to restore`
          : `no forgotten document ${id} in brain "${brain.slug}"; see the timeline for what was forgotten`,
      );
    }
    return await d.remember(actor.caller, {
      brain: brain.id,
      path: gone.path,
      title: gone.title,
      content: gone.content,
    });
  }, (r) => r.brain_id);
}

/** A forgotten document as the timeline lists it. */
export interface ForgottenEntry {
  document_id: string;
  path: string;
  title: string;
  at: string;
}

/** The timeline, and which of its forgotten documents are still forgotten (restorable). */
export async function timeline(
  actor: ConsoleActor,
  brain: Brain,
  o: { limit: number },
): Promise<{ items: TimelineEntry[]; forgotten: ForgottenEntry[] }> {
  const items = (await actor.tool<{ items: TimelineEntry[] }>("memory_timeline", {
    brain: brain.id,
    limit: o.limit,
  })).items;
  const forgotten: ForgottenEntry[] = [];
  const seen = new Set<string>();
  for (const i of items) {
    if (i.action !== "deleted" || seen.has(i.document_id)) continue;
    seen.add(i.document_id);
    const doc = await actor.deps.service.pathOwner(brain, i.path);
    if (doc && doc.id === i.document_id && doc.deleted_at !== null) {
      forgotten.push({ document_id: i.document_id, path: i.path, title: i.title, at: i.at });
    }
  }
  return { items, forgotten };
}
