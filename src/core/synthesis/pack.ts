/**
 * @module memory_pack: a compact, cited bundle of what a brain holds about something, within a
 * token budget. The most relevant material comes first — search hits for a query; the sections
 * of named documents (ordered by the query when there is one); else the most recently changed
 * documents — without repeats, each excerpt headed by its path. The pack never exceeds the
 * budget as counted by the tokenizer (text/token_count.ts); what did not fit is cut at a word
 * boundary or left out, and `truncated` says so.
 */
import { EngramError } from "../errors.ts";
import { scopePrefix } from "../limits.ts";
import { headingSections } from "../markdown/structure.ts";
import { normalizePath } from "../markdown/naming.ts";
import type { MemoryService } from "../memory_service.ts";
import type { PackArgs } from "./synthesis_schemas.ts";
import { overlap, terms } from "../text/terms.ts";
import { dedupeExcerpts, type Excerpt, fitExcerpts } from "./pack_budget.ts";
import { loadTokenCounter } from "../text/token_count.ts";
import type { Brain, CallerContext, DocumentWithContent } from "../types.ts";

/** A document a pack quotes, with the search chunks its excerpts came from. */
export interface PackSource {
  document_id: string;
  path: string;
  title: string;
  /** The chunks quoted, when the excerpts came from search; empty for whole sections. */
  chunk_ids: string[];
}

/** memory_pack's result. */
export interface PackResult {
  pack: string;
  sources: PackSource[];
  tokens: number;
  truncated: boolean;
  budget_tokens: number;
  tokenizer: string;
  brain_id: string;
  /** What the pack was built from. */
  basis: "query" | "documents" | "recent";
  /** Why the pack is empty, and what to do. */
  note?: string;
}

/** Search hits considered for a query pack. */
const QUERY_CHUNKS = 60;
/** Documents read for a recency pack: enough to fill the largest budget. */
const RECENT_DOCUMENTS = 200;

/** Builds a pack. */
export async function pack(
  deps: { service: MemoryService },
  caller: CallerContext,
  args: PackArgs,
): Promise<PackResult> {
  const brain = await deps.service.brain(caller, args.brain);
  const counter = await loadTokenCounter();
  const named = args.paths !== undefined || args.ids !== undefined;
  const basis = named ? "documents" : args.query ? "query" : "recent";
  const candidates = named
    ? await documentExcerpts(deps.service, brain, args)
    : args.query
    ? await queryExcerpts(deps.service, brain, args)
    : await recentExcerpts(deps.service, brain, args);
  const base = {
    budget_tokens: args.budget_tokens,
    tokenizer: counter.name,
    brain_id: brain.id,
    basis,
  } as const;
  if (candidates.length === 0) {
    return {
      ...base,
      pack: "",
      sources: [],
      tokens: 0,
      truncated: false,
      note: args.query && !named
        ? `nothing in brain "${brain.slug}" matches "${args.query}"; try other words, or leave out query to pack the most recently changed documents`
        : `brain "${brain.slug}" holds no documents${
          args.scope !== "all" ? ` in scope ${args.scope}` : ""
        } yet; store notes with memory_remember (or engram remember / engram ingest), then pack again`,
    };
  }
  const what = basis === "query"
    ? `"${oneLine(args.query!)}"`
    : basis === "documents"
    ? "selected documents"
    : "most recently changed documents";
  const header = `# Memory pack: ${what} (brain ${brain.slug})\n\n`;
  const fitted = fitExcerpts(header, dedupeExcerpts(candidates), {
    counter,
    budget: args.budget_tokens,
  });
  return {
    ...base,
    pack: fitted.text,
    sources: sourcesOf(fitted.used),
    tokens: fitted.tokens,
    truncated: fitted.truncated,
  };
}

async function queryExcerpts(
  service: MemoryService,
  brain: Brain,
  args: PackArgs,
): Promise<Excerpt[]> {
  const hits = await service.searchHits({
    brainId: brain.id,
    text: args.query!,
    topK: QUERY_CHUNKS,
    scope: args.scope,
    sort: "relevance",
    group: "chunk",
  });
  return hits.map((h) => ({
    document_id: h.document_id,
    path: h.path,
    title: h.title,
    heading: h.heading_path ?? [],
    text: h.content,
    chunk_id: h.chunk_id,
  }));
}

async function documentExcerpts(
  service: MemoryService,
  brain: Brain,
  args: PackArgs,
): Promise<Excerpt[]> {
  const docs: DocumentWithContent[] = [];
  const seen = new Set<string>();
  const add = (d: DocumentWithContent) => {
    if (!seen.has(d.id)) docs.push(d);
    seen.add(d.id);
  };
  for (const raw of args.paths ?? []) {
    if (raw.endsWith("/")) {
      const under = await service.documentsUnder(brain, raw);
      if (under.length === 0) throw missing(brain, `no documents under ${raw}`);
      for (const r of under) {
        const d = await service.readLive(brain, { id: r.id });
        if (d) add(d);
      }
      continue;
    }
    const d = await service.readLive(brain, { path: normalizePath(raw) });
    if (!d) throw missing(brain, `no document at ${raw}`);
    add(d);
  }
  for (const id of args.ids ?? []) {
    const d = await service.readLive(brain, { id });
    if (!d) throw missing(brain, `no document with id ${id}`);
    add(d);
  }
  const excerpts = docs.flatMap(sections);
  if (!args.query) return excerpts;
  const q = terms(args.query);
  const scored = excerpts.map((e, i) => ({
    e,
    i,
    s: overlap(q, terms(`${e.heading.join(" ")} ${e.text}`)),
  }));
  return scored.sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.e);
}

async function recentExcerpts(
  service: MemoryService,
  brain: Brain,
  args: PackArgs,
): Promise<Excerpt[]> {
  const prefix = scopePrefix(args.scope);
  const records = await service.documentsUnder(brain, prefix);
  const recent = records.sort((a, b) => b.updated_at.localeCompare(a.updated_at)).slice(
    0,
    RECENT_DOCUMENTS,
  );
  const out: Excerpt[] = [];
  let chars = 0;
  for (const r of recent) {
    // A token is at least a character or so: stop reading once far more text than fits is in.
    if (chars > args.budget_tokens * 8) break;
    const d = await service.readLive(brain, { id: r.id });
    if (!d) continue;
    const parts = sections(d);
    out.push(...parts);
    chars += parts.reduce((n, p) => n + p.text.length, 0);
  }
  return out;
}

/** A document's sections: the text under each heading, with the heading path. */
function sections(doc: DocumentWithContent): Excerpt[] {
  return headingSections(doc.content).flatMap((section) => {
    const text = doc.content.slice(section.start, section.end).trim();
    return text
      ? [{ document_id: doc.id, path: doc.path, title: doc.title, heading: section.path, text }]
      : [];
  });
}

function sourcesOf(used: Excerpt[]): PackSource[] {
  const byDoc = new Map<string, PackSource>();
  for (const e of used) {
    const s = byDoc.get(e.document_id) ??
      { document_id: e.document_id, path: e.path, title: e.title, chunk_ids: [] };
    if (e.chunk_id && !s.chunk_ids.includes(e.chunk_id)) s.chunk_ids.push(e.chunk_id);
    byDoc.set(e.document_id, s);
  }
  return [...byDoc.values()];
}

function missing(brain: Brain, what: string): EngramError {
  return new EngramError(
    "not_found",
    `${what} in brain "${brain.slug}"; find paths with memory_search or engram list, or pass query instead`,
  );
}

function oneLine(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > 120 ? `${t.slice(0, 119)}…` : t;
}
