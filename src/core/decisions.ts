/**
 * @module memory_decisions: the decisions a brain records, each cited. With a query, the
 * passages search finds for it go to the model stack (a configured model, the client's sampling,
 * or the rules); without one, every document (newest first) is read by rule, and each decision
 * is cited by the chunk that holds it.
 */
import { answerSources } from "./answer_sources.ts";
import type { MemoryService } from "./memory_service.ts";
import type { AnswerSource, DecisionDraft, MemoryModel } from "./ports/language_model.ts";
import { calendarDate } from "./synthesis/calendar_words.ts";
import { findDecisions } from "./synthesis/decision_rules.ts";
import { noteLines } from "./synthesis/note_lines.ts";
import { noteUnits } from "./synthesis/note_units.ts";
import { type DecisionsArgs, sinceInstant } from "./synthesis_schemas.ts";
import { splitSentences } from "./text/sentences.ts";
import { overlap, terms } from "./text/terms.ts";
import type { Brain, CallerContext, SearchHit } from "./types.ts";

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
/** Two decisions sharing this much of the shorter one's words are one. */
const SAME_DECISION = 0.7;
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
  const seen: string[][] = [];
  for (const d of found.decisions) {
    if (since && d.when && /^\d{4}-\d{2}-\d{2}/.test(d.when) && d.when < since.slice(0, 10)) {
      continue;
    }
    const words = terms(d.statement);
    if (seen.some((s) => same(words, s))) continue;
    seen.push(words);
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
    for (const d of findDecisions(noteUnits(lines))) {
      const section = lines[d.line - 1]?.section ?? [];
      const chunk = await citingChunk(service, o.brain, { documentId: doc.id, quote: d.quote });
      out.push({
        statement: d.statement,
        ...(d.rationale ? { rationale: d.rationale } : {}),
        ...(d.who ? { who: d.who } : {}),
        when: dateOf([...section].reverse(), doc.title, doc.content) ?? doc.updated_at.slice(0, 10),
        citation: { document_id: doc.id, chunk_id: chunk, path: doc.path, quote: d.quote },
      });
    }
  }
  return { decisions: out, provider: "extractive" };
}

/** A decision from a passage, cited by its chunk with a verbatim quote. */
function record(d: DecisionDraft, hit: SearchHit): DecisionRecord {
  const when = d.when ?? dateOf([...hit.heading_path].reverse(), hit.title, hit.content) ??
    hit.updated_at.slice(0, 10);
  return {
    statement: d.statement,
    ...(d.rationale ? { rationale: d.rationale } : {}),
    ...(d.who ? { who: d.who } : {}),
    when,
    citation: {
      document_id: hit.document_id,
      chunk_id: hit.chunk_id,
      path: hit.path,
      quote: verbatim(d.quote, hit.content) ?? bestSentence(d.statement, hit.content),
    },
  };
}

/** The chunk of a document holding `quote`, found by searching its words. */
async function citingChunk(
  service: MemoryService,
  brain: Brain,
  o: { documentId: string; quote: string },
): Promise<string> {
  const hits = await service.searchHits({
    brainId: brain.id,
    text: o.quote.slice(0, 1000),
    topK: CITE_CHUNKS,
    scope: "all",
    sort: "relevance",
    group: "chunk",
  });
  const own = hits.filter((h) => h.document_id === o.documentId);
  const flat = (s: string) => s.replace(/\s+/g, " ").trim();
  return (own.find((h) => flat(h.content).includes(flat(o.quote))) ?? own[0])?.chunk_id ?? "";
}

/** The quote as the passage writes it, when the passage holds it (spacing aside). */
function verbatim(quote: string, text: string): string | null {
  const q = quote.replace(/\s+/g, " ").trim();
  if (!q) return null;
  return text.replace(/\s+/g, " ").includes(q) ? q : null;
}

/** The passage sentence sharing the most words with the statement. */
function bestSentence(statement: string, text: string): string {
  const want = terms(statement);
  let best = "";
  let score = -1;
  for (const s of splitSentences(text)) {
    const o = overlap(want, terms(s.text));
    if (o > score) [best, score] = [s.text, o];
  }
  return best || text.trim().slice(0, 300);
}

/** A full date from the nearest heading, the title, or the document's first lines. */
function dateOf(headings: string[], title: string, content: string): string | undefined {
  for (const h of headings) {
    const d = calendarDate(h);
    if (d) return d;
  }
  return calendarDate(title) ?? calendarDate(content.slice(0, 600)) ?? undefined;
}

function same(a: string[], b: string[]): boolean {
  const [short, long] = new Set(a).size <= new Set(b).size ? [a, b] : [b, a];
  return short.length > 0 && overlap(short, long) >= SAME_DECISION;
}
