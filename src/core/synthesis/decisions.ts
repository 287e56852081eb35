/**
 * @module memory_decisions: the decisions a brain records, each cited. With a query, the
 * passages search finds for it go to the model stack (a configured model, the client's sampling,
 * or the rules); without one, every document (newest first) is read by rule, and each decision
 * is cited by the chunk that holds it.
 */
import { answerSources } from "../answering/answer_sources.ts";
import { bestQuote } from "../answering/citations.ts";
import type { MemoryService } from "../memory_service.ts";
import type { AnswerSource, DecisionDraft, MemoryModel } from "../ports/language_model.ts";
import { calendarDate } from "./calendar_words.ts";
import { findDecisions } from "./decision_rules.ts";
import { NearDuplicates } from "./near_duplicates.ts";
import { noteLines } from "./note_lines.ts";
import { noteUnits } from "./note_units.ts";
import { type DecisionsArgs, sinceInstant } from "./synthesis_schemas.ts";
import { overlap, terms } from "../text/terms.ts";
import type { Brain, CallerContext, SearchHit } from "../types.ts";

/** Where a decision is written. */
export interface DecisionCitation {
  document_id: string;
  chunk_id: string;
  path: string;
  quote: string;
}

/** One decision. */
export interface DecisionRecord {
  statement: string;
  rationale?: string;
  who?: string;
  /** When it was decided: a date the notes give, else when the document last changed. */
  when?: string;
  citation: DecisionCitation;
}

/** memory_decisions's result. */
export interface DecisionsResult {
  decisions: DecisionRecord[];
  brain_id: string;
  /** Which provider found them ("extractive" for the rules). */
  provider: string;
  note?: string;
}

/** Passages searched for a query. */
const QUERY_CHUNKS = 24;
/** Chunks searched to cite a decision found by reading a whole document. */
const CITE_CHUNKS = 10;

/** The decisions of a brain, or those about `query`. */
export async function decisions(
  deps: { service: MemoryService; model: MemoryModel; now?: () => Date },
  caller: CallerContext,
  args: DecisionsArgs,
  o: { signal?: AbortSignal } = {},
): Promise<DecisionsResult> {
  const brain = await deps.service.brain(caller, args.brain);
  const since = args.since
    ? sinceInstant(args.since, (deps.now ?? (() => new Date()))())
    : undefined;
  const found = args.query
    ? await aboutQuery(deps, { brain, query: args.query, since, signal: o.signal })
    : await everywhere(deps.service, { brain, since, limit: args.limit });
  const kept: DecisionRecord[] = [];
  const seen = new NearDuplicates();
  for (const d of found.decisions) {
    if (since && d.when && /^\d{4}-\d{2}-\d{2}/.test(d.when) && d.when < since.slice(0, 10)) {
      continue;
    }
    // A statement without words repeats nothing and is kept (NearDuplicates would drop it).
    if (terms(d.statement).length > 0 && seen.isRepeat(d.statement)) continue;
    kept.push(d);
    if (kept.length >= args.limit) break;
  }
  return {
    decisions: kept,
    brain_id: brain.id,
    provider: found.provider,
    ...(kept.length === 0
      ? {
        note: args.query
          ? `no decision about "${args.query}" found in brain "${brain.slug}"; try other words, or leave out query to list every decision`
          : `no decisions found in brain "${brain.slug}"${
            since ? ` since ${since}` : ""
          }; notes record them as "we decided …", "agreed: …" or under a "Decisions" heading`,
      }
      : {}),
  };
}

async function aboutQuery(
  deps: { service: MemoryService; model: MemoryModel },
  o: { brain: Brain; query: string; since?: string; signal?: AbortSignal },
): Promise<{ decisions: DecisionRecord[]; provider: string }> {
  const hits = (await deps.service.searchHits({
    brainId: o.brain.id,
    text: o.query,
    topK: QUERY_CHUNKS,
    scope: "all",
    sort: "relevance",
    group: "chunk",
  })).filter((h) => !o.since || h.updated_at >= o.since);
  if (hits.length === 0) return { decisions: [], provider: "none" };
  const sources: AnswerSource[] = answerSources(hits);
  const drafts = await deps.model.extractDecisions({ sources, query: o.query, signal: o.signal });
  const q = terms(o.query);
  const records = drafts.decisions.flatMap((d) => {
    const hit = hits[d.source - 1];
    if (!hit) return [];
    // The rules read every decision of a passage; keep those about the query.
    const about = `${d.statement} ${d.rationale ?? ""} ${hit.title} ${hit.heading_path.join(" ")}`;
    if (drafts.provider === "extractive" && overlap(q, terms(about)) === 0) return [];
    return [record(d, hit)];
  });
  return { decisions: records, provider: drafts.provider };
}

async function everywhere(
  service: MemoryService,
  o: { brain: Brain; since?: string; limit: number },
): Promise<{ decisions: DecisionRecord[]; provider: string }> {
  const docs = (await service.documentsUnder(o.brain, "/"))
    .filter((d) => !o.since || d.updated_at >= o.since)
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  const out: DecisionRecord[] = [];
  for (const r of docs) {
    if (out.length >= o.limit * 2) break;
    const doc = await service.readLive(o.brain, { id: r.id });
    if (!doc) continue;
    const lines = noteLines(doc.content);
    const found = findDecisions(noteUnits(lines));
    if (found.length === 0) continue;
    const chunks = await service.chunksOf(o.brain, doc.id);
    const documentWhen = documentDate(doc.title, doc.content) ?? doc.updated_at.slice(0, 10);
    for (const d of found) {
      const section = lines[d.line - 1]?.section ?? [];
      const chunk = await citingChunk(service, o.brain, {
        documentId: doc.id,
        quote: d.quote,
        chunks,
      });
      out.push({
        statement: d.statement,
        ...(d.rationale ? { rationale: d.rationale } : {}),
        ...(d.who ? { who: d.who } : {}),
        when: headingDate([...section].reverse()) ?? documentWhen,
        citation: { document_id: doc.id, chunk_id: chunk, path: doc.path, quote: d.quote },
      });
    }
  }
  return { decisions: out, provider: "extractive" };
}

/** A decision from a passage, cited by its chunk with a verbatim quote. */
function record(d: DecisionDraft, hit: SearchHit): DecisionRecord {
  const when = d.when ?? headingDate([...hit.heading_path].reverse()) ??
    documentDate(hit.title, hit.content) ?? hit.updated_at.slice(0, 10);
  return {
    statement: d.statement,
    ...(d.rationale ? { rationale: d.rationale } : {}),
    ...(d.who ? { who: d.who } : {}),
    when,
    citation: {
      document_id: hit.document_id,
      chunk_id: hit.chunk_id,
      path: hit.path,
      quote: verbatim(d.quote, hit.content) ??
        bestQuote(d.statement, hit.content, { fallbackChars: 300 }),
    },
  };
}

/**
 * The chunk of a document holding `quote`: the first of its `chunks` that does (spacing aside),
 * else the best of a search for the quote's words among the document's chunks.
 */
async function citingChunk(
  service: MemoryService,
  brain: Brain,
  o: { documentId: string; quote: string; chunks: { id: string; text: string }[] },
): Promise<string> {
  const holding = o.chunks.find((c) => verbatim(o.quote, c.text) !== null);
  if (holding) return holding.id;
  const hits = await service.searchHits({
    brainId: brain.id,
    text: o.quote.slice(0, 1000),
    topK: CITE_CHUNKS,
    scope: "all",
    sort: "relevance",
    group: "chunk",
  });
  const own = hits.filter((h) => h.document_id === o.documentId);
  return (own.find((h) => verbatim(o.quote, h.content) !== null) ?? own[0])?.chunk_id ?? "";
}

/** The quote as the passage writes it, when the passage holds it (spacing aside). */
function verbatim(quote: string, text: string): string | null {
  const q = quote.replace(/\s+/g, " ").trim();
  if (!q) return null;
  return text.replace(/\s+/g, " ").includes(q) ? q : null;
}

/** A full date from the nearest heading that gives one (`headings` innermost first). */
function headingDate(headings: string[]): string | undefined {
  for (const h of headings) {
    const d = calendarDate(h);
    if (d) return d;
  }
  return undefined;
}

/** A full date from a document's title or its first lines. */
function documentDate(title: string, content: string): string | undefined {
  return calendarDate(title) ?? calendarDate(content.slice(0, 600)) ?? undefined;
}
