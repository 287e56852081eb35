/**
 * @module memory_pack: a compact, cited bundle of what a brain holds about something, within a
 * token budget. The most relevant material comes first — search hits for a query; the sections
 * of named documents (ordered by the query when there is one); else the most recently changed
 * documents — without repeats, each excerpt headed by its path. The pack never exceeds the
 * budget as counted by the tokenizer (text/token_count.ts); what did not fit is cut at a word
 * boundary or left out, and `truncated` says so.
 */
import { EngramError } from "./errors.ts";
import { SCOPE_PREFIX } from "./limits.ts";
import { findHeadings, frontMatterLength } from "./markdown/structure.ts";
import { normalizePath } from "./markdown/naming.ts";
import type { MemoryService } from "./memory_service.ts";
import type { PackArgs } from "./synthesis_schemas.ts";
import { overlap, terms } from "./text/terms.ts";
import { loadTokenCounter, type TokenCounter } from "./text/token_count.ts";
import type { Brain, CallerContext, DocumentWithContent } from "./types.ts";

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

/** One candidate excerpt. */
interface Excerpt {
  document_id: string;
  path: string;
  title: string;
  heading: string[];
  text: string;
  chunk_id?: string;
}

/** Search hits considered for a query pack. */
const QUERY_CHUNKS = 60;
/** An excerpt sharing this much of its words with one already packed adds nothing. */
const REPEAT = 0.8;
/** Below this many tokens left, a cut excerpt is not worth its heading. */
const MIN_CUT_TOKENS = 40;
/** Candidates tried after the first that did not fit whole. */
const AFTER_FULL = 20;
/** Documents read for a recency pack: enough to fill the largest budget. */
const RECENT_DOCUMENTS = 200;
/** Words compared when trimming the overlap between two windows of one section. */
const OVERLAP_WORDS = 80;

/** Builds a pack. */
export async function pack(
  deps: { service: MemoryService; tokens?: () => Promise<TokenCounter> },
  caller: CallerContext,
  args: PackArgs,
): Promise<PackResult> {
  const brain = await deps.service.brain(caller, args.brain);
  const counter = await (deps.tokens ?? loadTokenCounter)();
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
  const fitted = fit(header, dedupe(candidates), { counter, budget: args.budget_tokens });
  return {
    ...base,
    pack: fitted.text,
    sources: sourcesOf(fitted.used),
    tokens: fitted.tokens,
    truncated: fitted.truncated,
  };
}

/** Packs excerpts in order while they fit; the first that does not fit whole is cut to fit. */
function fit(
  header: string,
  excerpts: Excerpt[],
  o: { counter: TokenCounter; budget: number },
): { text: string; tokens: number; truncated: boolean; used: Excerpt[] } {
  const blocks: string[] = [header];
  const used: Excerpt[] = [];
  let tokens = o.counter.count(header);
  let truncated = false;
  let tried = 0;
  let lastHeading = "";
  for (const e of excerpts) {
    if (truncated && ++tried > AFTER_FULL) break;
    const heading = headingOf(e);
    const head = heading === lastHeading ? "" : `${heading}\n`;
    const block = `${head}${e.text.trim()}\n\n`;
    const cost = o.counter.count(block);
    if (tokens + cost <= o.budget) {
      blocks.push(block);
      used.push(e);
      tokens += cost;
      lastHeading = heading;
      continue;
    }
    truncated = true;
    const room = o.budget - tokens - o.counter.count(head);
    if (room < MIN_CUT_TOKENS) continue;
    const cut = cutToFit(e.text.trim(), room - 1, o.counter);
    if (!cut) continue;
    const piece = `${head}${cut}\n\n`;
    blocks.push(piece);
    used.push(e);
    tokens += o.counter.count(piece);
    lastHeading = heading;
  }
  // Counting the whole can differ from the sum of its parts where they meet; never exceed.
  let text = blocks.join("").trimEnd() + "\n";
  let total = o.counter.count(text);
  while (total > o.budget && blocks.length > 1) {
    blocks.pop();
    used.pop();
    truncated = true;
    text = blocks.join("").trimEnd() + "\n";
    total = o.counter.count(text);
  }
  return { text, tokens: total, truncated, used };
}

/** The longest prefix of `text` (cut at a word boundary, marked "…") within `room` tokens. */
function cutToFit(text: string, room: number, counter: TokenCounter): string | null {
  let lo = 0;
  let hi = text.length;
  let best: string | null = null;
  // A token is rarely longer than 8 characters: start the search near the answer.
  hi = Math.min(hi, room * 8);
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const candidate = `${text.slice(0, mid).replace(/\s+\S*$/, "").trimEnd()} …`;
    if (counter.count(candidate) <= room) {
      if (candidate.length > 2) best = candidate;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** Excerpts in order, without those another one already says, and without window overlaps. */
function dedupe(excerpts: Excerpt[]): Excerpt[] {
  const kept: { e: Excerpt; words: string[] }[] = [];
  const chunks = new Set<string>();
  for (const e of excerpts) {
    if (e.chunk_id && chunks.has(e.chunk_id)) continue;
    if (e.chunk_id) chunks.add(e.chunk_id);
    let text = e.text;
    for (const k of kept) {
      if (k.e.document_id === e.document_id) text = withoutOverlap(k.e.text, text);
    }
    const words = terms(text);
    if (words.length === 0) continue;
    if (kept.some((k) => overlap(words, k.words) >= REPEAT)) continue;
    kept.push({ e: { ...e, text }, words });
  }
  return kept.map((k) => k.e);
}

/** `next` without the words it repeats from the end of `previous` (overlapping windows). */
function withoutOverlap(previous: string, next: string): string {
  const a = previous.split(/\s+/).slice(-OVERLAP_WORDS);
  const b = next.split(/\s+/);
  for (let k = Math.min(a.length, b.length); k >= 5; k--) {
    if (a.slice(-k).join(" ") === b.slice(0, k).join(" ")) return b.slice(k).join(" ");
  }
  return next;
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
  const prefix = args.scope === "all" ? "/" : SCOPE_PREFIX[args.scope];
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
  const content = doc.content;
  const headings = findHeadings(content);
  const out: Excerpt[] = [];
  const stack: { level: number; text: string }[] = [];
  let start = frontMatterLength(content);
  let path: string[] = [];
  const flush = (end: number) => {
    const text = content.slice(start, end).trim();
    if (text) {
      out.push({ document_id: doc.id, path: doc.path, title: doc.title, heading: path, text });
    }
  };
  for (const h of headings) {
    flush(h.start);
    while (stack.length && stack[stack.length - 1].level >= h.level) stack.pop();
    stack.push({ level: h.level, text: h.text });
    path = stack.map((s) => s.text);
    start = h.end;
  }
  flush(content.length);
  return out;
}

function headingOf(e: Excerpt): string {
  const where = e.heading.length ? ` › ${e.heading.join(" › ")}` : "";
  return `## ${e.path}${where}`;
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
