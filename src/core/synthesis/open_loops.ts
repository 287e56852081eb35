/**
 * @module memory_open_loops: what is still open in a brain — unchecked tasks, TODOs and
 * follow-ups, questions nobody answered, commitments ("I'll …", "waiting on …") — with where each
 * was written and when it first appeared. A document's earlier versions tell when an item was
 * first seen and when it closed: checked off, answered, or removed. Rules only: scanning every
 * document with a model would be slow and costly, and checkboxes need none.
 */
import { MEETING_SOURCE_KEY } from "./meetings.ts";
import type { MemoryService } from "../memory_service.ts";
import { scopePrefix } from "../limits.ts";
import { findLoops, type FoundLoop, type LoopKind } from "./loop_rules.ts";
import { type OpenLoopsArgs, sinceInstant } from "./synthesis_schemas.ts";
import type { Brain, CallerContext, DocumentWithContent } from "../types.ts";

/** One open loop, where it was written, and its state. */
export interface OpenLoop {
  kind: LoopKind;
  text: string;
  owner?: string;
  due?: string;
  path: string;
  document_id: string;
  /** 1-based line in the document's current version (in the last version holding it, when removed). */
  line: number;
  /** When the item first appeared (the time of the oldest version read that holds it). */
  first_seen: string;
  status: "open" | "closed";
  /** For closed items: how and when. */
  closed_by?: "checked" | "answered" | "removed";
  closed_at?: string;
}

/** memory_open_loops's result. */
export interface OpenLoopsResult {
  items: OpenLoop[];
  /** Open items found, by kind, before `limit`. */
  open_counts: Record<LoopKind, number>;
  /** More items matched than `limit` let through. */
  truncated: boolean;
  documents_scanned: number;
  brain_id: string;
  note?: string;
}

/** Earlier versions of one document read to date its items. */
const MAX_HISTORY = 20;

/** The open loops of a brain, newest first. */
export async function openLoops(
  deps: { service: MemoryService; now?: () => Date },
  caller: CallerContext,
  args: OpenLoopsArgs,
): Promise<OpenLoopsResult> {
  const brain = await deps.service.brain(caller, args.brain);
  const since = args.since
    ? sinceInstant(args.since, (deps.now ?? (() => new Date()))())
    : undefined;
  const prefix = scopePrefix(args.scope);
  const kinds = new Set<LoopKind>(args.kinds ?? ["task", "question", "commitment"]);
  const found: OpenLoop[] = [];
  // Sources a stored meeting note stands for (memory_meeting_extract store): their items are the
  // note's checkboxes, listed once, from the note.
  const summarized = new Set<string>();
  let scanned = 0;
  for await (const doc of deps.service.liveDocuments(brain)) {
    const source = doc.metadata[MEETING_SOURCE_KEY];
    if (typeof source === "string") summarized.add(source);
    if (!doc.path.startsWith(prefix)) continue;
    // Nothing in a document unchanged since `since` can be newer than it.
    if (since && doc.updated_at < since) continue;
    scanned++;
    const items = await documentLoops(deps.service, caller, {
      brain,
      doc,
      withRemoved: args.include_closed,
    });
    found.push(...items.filter((i) => kinds.has(i.kind) && (!since || i.first_seen >= since)));
  }
  const all = found.filter((i) => !summarized.has(i.path));
  const open_counts = { task: 0, question: 0, commitment: 0 };
  for (const i of all) if (i.status === "open") open_counts[i.kind]++;
  const shown = all.filter((i) => args.include_closed || i.status === "open").sort((a, b) =>
    b.first_seen.localeCompare(a.first_seen) || a.path.localeCompare(b.path) || a.line - b.line
  );
  return {
    items: shown.slice(0, args.limit),
    open_counts,
    truncated: shown.length > args.limit,
    documents_scanned: scanned,
    brain_id: brain.id,
    ...(scanned === 0
      ? {
        note: since
          ? `no document in brain "${brain.slug}" changed since ${since}; widen since`
          : `brain "${brain.slug}" holds no documents${
            args.scope !== "all" ? ` in scope ${args.scope}` : ""
          } yet`,
      }
      : {}),
  };
}

/** A document's loops, dated by its earlier versions. */
async function documentLoops(
  service: MemoryService,
  caller: CallerContext,
  o: { brain: Brain; doc: DocumentWithContent; withRemoved: boolean },
): Promise<OpenLoop[]> {
  const { doc } = o;
  const current = findLoops(doc.content);
  const state = new Map<string, { first_seen: string; closed_at?: string }>();
  for (const l of current) {
    state.set(keyOf(l), {
      first_seen: doc.updated_at,
      ...(l.status === "closed" ? { closed_at: doc.updated_at } : {}),
    });
  }
  const removed = new Map<string, OpenLoop>();
  if (doc.version > 1 && (current.length > 0 || o.withRemoved)) {
    let newer = new Set(current.map(keyOf));
    let newerAt = doc.updated_at;
    const oldest = Math.max(1, doc.version - MAX_HISTORY);
    for (let v = doc.version - 1; v >= oldest; v--) {
      const old = await service.get(caller, { id: doc.id, brain: o.brain.id, version: v });
      const loops = findLoops(old.content);
      for (const l of loops) {
        const key = keyOf(l);
        const s = state.get(key);
        if (s) {
          s.first_seen = old.updated_at;
          // Closed in this older version too: it closed no later than then.
          if (l.status === "closed" && s.closed_at) s.closed_at = old.updated_at;
        } else if (o.withRemoved && l.status === "open" && !newer.has(key) && !removed.has(key)) {
          removed.set(key, {
            ...itemOf(l, doc),
            first_seen: old.updated_at,
            status: "closed",
            closed_by: "removed",
            closed_at: newerAt,
          });
        } else if (removed.has(key)) {
          removed.get(key)!.first_seen = old.updated_at;
        }
      }
      newer = new Set(loops.map(keyOf));
      newerAt = old.updated_at;
    }
  } else {
    for (const s of state.values()) s.first_seen = doc.created_at;
  }
  const items = current.map((l): OpenLoop => {
    const s = state.get(keyOf(l))!;
    return {
      ...itemOf(l, doc),
      first_seen: s.first_seen,
      status: l.status,
      ...(l.status === "closed"
        ? {
          closed_by: l.kind === "question" ? "answered" : "checked",
          closed_at: s.closed_at ?? doc.updated_at,
        }
        : {}),
    };
  });
  return [...items, ...removed.values()];
}

function itemOf(l: FoundLoop, doc: DocumentWithContent): Omit<OpenLoop, "first_seen" | "status"> {
  return {
    kind: l.kind,
    text: l.text,
    ...(l.owner ? { owner: l.owner } : {}),
    ...(l.due ? { due: l.due } : {}),
    path: doc.path,
    document_id: doc.id,
    line: l.line,
  };
}

/** The identity of an item across versions: its kind and words. */
function keyOf(l: FoundLoop): string {
  return `${l.kind}\0${
    l.text.normalize("NFKC").toLowerCase().replace(/[`*_~]/g, "").replace(/\s+/g, " ").trim()
  }`;
}
