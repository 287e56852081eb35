/**
 * @module Keeping extracted facts: one document per fact under `/memory/<scope>/facts/`, with
 * duplicates folded into the existing fact and contradicted facts superseded — kept, marked and
 * linked to their successor, never deleted.
 */
import type { MemoryService } from "../memory_service.ts";
import type { FactCandidate } from "../ports/language_model.ts";
import { slugify } from "../markdown/naming.ts";
import { SCOPE_PREFIX } from "../limits.ts";
import { overlap, terms } from "../text/terms.ts";
import type { Brain, CallerContext, DocumentRecord, Metadata } from "../types.ts";

/** What one extraction run did (docs/tools.md#memory_extract). */
export interface ExtractionReport {
  inserted: number;
  duplicate: number;
  superseded: number;
  /** Facts this run created. */
  fact_ids: string[];
  /** Existing facts the run found again. */
  duplicate_ids: string[];
  /** Facts this run superseded. */
  superseded_ids: string[];
}

/** Where a scope's facts live. */
export function factsPrefix(scope: "global" | "project" | "agent"): string {
  return `${SCOPE_PREFIX[scope]}facts/`;
}

/** Two fact texts this similar (term overlap) are the same fact said differently. */
const SAME_TEXT = 0.85;

/** A fact's identity: subject and attribute, normalised. */
export function factKey(f: { subject: string; attribute: string }): string {
  return `${normal(f.subject)}|${normal(f.attribute)}`;
}

function normal(s: string): string {
  return s.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** Whether a document is a fact that is still current. */
export function isActiveFact(doc: DocumentRecord): boolean {
  return doc.metadata.kind === "fact" && doc.metadata.status !== "superseded";
}

/** Stores candidates as facts of `scope`, folding duplicates and superseding contradicted facts. */
export async function keepFacts(
  service: MemoryService,
  candidates: FactCandidate[],
  o: {
    caller: CallerContext;
    brain: Brain;
    scope: "global" | "project" | "agent";
    sessionId: string;
    provider: string;
  },
): Promise<ExtractionReport> {
  const report: ExtractionReport = {
    inserted: 0,
    duplicate: 0,
    superseded: 0,
    fact_ids: [],
    duplicate_ids: [],
    superseded_ids: [],
  };
  const prefix = factsPrefix(o.scope);
  const active = (await service.documentsUnder(o.brain, prefix)).filter(isActiveFact);
  // Each fact's words, tokenised once rather than once per candidate.
  const titleTerms = new Map<string, string[]>();
  const termsOf = (f: DocumentRecord) => {
    let t = titleTerms.get(f.id);
    if (!t) titleTerms.set(f.id, t = terms(f.title));
    return t;
  };
  const brain = o.brain.id;
  for (const c of candidates) {
    const key = factKey(c);
    const value = normal(c.value);
    const words = terms(c.text);
    // Same key: the value decides (same → duplicate, other → contradiction), however alike the
    // wording ("tabs over spaces" / "spaces over tabs"). Otherwise near-identical wording is a
    // duplicate the rules or the model keyed differently.
    const same = active.find((f) =>
      f.metadata.fact_key === key
        ? f.metadata.fact_value === value
        : overlap(words, termsOf(f)) >= SAME_TEXT
    );
    if (same) {
      const updated = await service.update(o.caller, {
        id: same.id,
        brain,
        metadata: seenAgain(same.metadata, o.sessionId),
      });
      active[active.indexOf(same)] = updated;
      report.duplicate++;
      report.duplicate_ids.push(same.id);
      continue;
    }
    const contradicted = active.filter((f) => f.metadata.fact_key === key);
    const now = new Date().toISOString();
    const path = await freePath(service, o, `${prefix}${slugify(c.text, 72) || "fact"}.md`);
    const doc = await service.remember(o.caller, {
      brain,
      path,
      title: c.text.slice(0, 512),
      content: factContent(c, {
        sessionId: o.sessionId,
        at: now,
        supersedes: contradicted,
      }),
      tags: ["fact"],
      metadata: {
        kind: "fact",
        status: "active",
        fact_key: key,
        fact_value: value,
        subject: c.subject,
        attribute: c.attribute,
        value: c.value,
        sessions: o.sessionId,
        session_count: 1,
        occurrences: 1,
        provider: o.provider,
        ...(contradicted.length ? { supersedes: contradicted.map((f) => f.id).join(",") } : {}),
      },
    }, { source: "extract" });
    report.inserted++;
    report.fact_ids.push(doc.id);
    for (const old of contradicted) {
      const current = await service.get(o.caller, { id: old.id, brain });
      await service.update(o.caller, {
        id: old.id,
        brain,
        content: `${current.content.trimEnd()}\n\n> Superseded on ${
          now.slice(0, 10)
        } by [[${doc.title}]] (${doc.path}).\n`,
        metadata: { status: "superseded", superseded_by: doc.id, superseded_at: now },
      });
      active.splice(active.indexOf(old), 1);
      report.superseded++;
      report.superseded_ids.push(old.id);
    }
    active.push(doc);
  }
  return report;
}

/** Metadata of a fact seen again: one more occurrence, and the session counted once. */
function seenAgain(metadata: Metadata, sessionId: string): Metadata {
  const sessions = String(metadata.sessions ?? "").split(",").filter(Boolean);
  if (!sessions.includes(sessionId)) sessions.push(sessionId);
  return {
    sessions: sessions.join(","),
    session_count: sessions.length,
    occurrences: Number(metadata.occurrences ?? 1) + 1,
    last_seen_at: new Date().toISOString(),
  };
}

function factContent(
  c: FactCandidate,
  o: { sessionId: string; at: string; supersedes: DocumentRecord[] },
): string {
  const lines = [
    `# ${c.text}`,
    "",
    `- subject: ${c.subject}`,
    `- attribute: ${c.attribute}`,
    `- value: ${c.value}`,
    `- first seen: session ${o.sessionId}, ${o.at.slice(0, 10)}`,
  ];
  for (const old of o.supersedes) lines.push(`- supersedes: [[${old.title}]] (${old.path})`);
  return lines.join("\n") + "\n";
}

/** `path`, or `path` with -2, -3, … when another document (even a forgotten one) holds it. */
async function freePath(
  service: MemoryService,
  o: { brain: Brain },
  path: string,
): Promise<string> {
  for (let n = 1;; n++) {
    const candidate = n === 1 ? path : path.replace(/\.md$/, `-${n}.md`);
    if (!(await service.pathOwner(o.brain, candidate))) return candidate;
  }
}
