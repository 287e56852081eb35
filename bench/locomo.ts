/**
 * @module A LoCoMo-format file (snap-research/LoCoMo, `data/locomo10.json`) turned into what the
 * retrieval benchmark stores and asks: per conversation, one document per dialog turn and one per
 * session, and the questions with the units their evidence points at.
 *
 * Questions of categories 1–4 (single-hop, temporal, multi-hop, open-domain) that name evidence
 * are asked; category 5 (adversarial: the answer is not in the conversation) has nothing to
 * retrieve. Evidence ids are `D<session>:<turn>`; a few in the published file are misspelt
 * (`D:11:26`, `D30:05`, two ids in one string), so ids are read by pattern and compared as
 * numbers, and an id naming no turn is dropped (a question left with none is not asked).
 */

/** One dialog turn as stored. */
export interface Turn {
  /** `D<session>:<turn>`, normalised (no leading zeros). */
  id: string;
  session: number;
  speaker: string;
  text: string;
  /** Caption of an image the speaker shared, if any. */
  caption?: string;
}

/** A document to remember: one turn or one session. */
export interface UnitDocument {
  /** The unit it stands for: a turn id (`D1:3`) or a session id (`S1`). */
  unit: string;
  path: string;
  title: string;
  content: string;
}

/** A question with the units holding its evidence. */
export interface Question {
  text: string;
  category: number;
  /** Evidence turn ids, normalised. */
  turns: string[];
  /** Sessions of those turns (`S1`), without repeats. */
  sessions: string[];
}

/** One conversation, ready to load and ask. */
export interface Conversation {
  /** Position in the file (what `--conversations` selects). */
  index: number;
  sampleId: string;
  turns: Turn[];
  turnDocuments: UnitDocument[];
  sessionDocuments: UnitDocument[];
  questions: Question[];
}

/** The granularity a brain is loaded at. */
export type Unit = "turn" | "session";

/** Question categories asked (5, adversarial, has no evidence to find). */
const ASKED_CATEGORIES = new Set([1, 2, 3, 4]);

const SESSION_KEY = /^session_(\d+)$/;
const EVIDENCE_ID = /D\s*:?\s*(\d+)\s*:\s*(\d+)/g;

type Json = Record<string, unknown>;

/** Parses a LoCoMo-format JSON text; throws naming the first thing that is not of that format. */
export function parseLocomo(text: string): Conversation[] {
  const data = JSON.parse(text) as unknown;
  if (!Array.isArray(data)) throw new Error("a LoCoMo file is a JSON array of conversations");
  return data.map((raw, index) => conversationOf(raw as Json, index));
}

/** Indexes chosen by a `--conversations` value such as `0-4`, `5-9` or `0,2,7`. */
export function selectIndexes(spec: string | undefined, count: number): number[] {
  if (spec === undefined || spec === "all") return Array.from({ length: count }, (_, i) => i);
  const out = new Set<number>();
  for (const part of spec.split(",")) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!m) throw new Error(`--conversations wants ranges like 0-4 or 0,2,7, not "${spec}"`);
    const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])];
    for (let i = from; i <= to; i++) {
      if (i >= count) throw new Error(`conversation ${i} does not exist (the file has ${count})`);
      out.add(i);
    }
  }
  return [...out].sort((a, b) => a - b);
}

function conversationOf(raw: Json, index: number): Conversation {
  const where = `conversation ${index}`;
  const conv = raw.conversation as Json | undefined;
  if (!conv || typeof conv !== "object") throw new Error(`${where}: no "conversation" object`);
  const sessions = Object.keys(conv)
    .map((k) => Number(SESSION_KEY.exec(k)?.[1]))
    .filter((n) => Number.isInteger(n))
    .sort((a, b) => a - b);
  const turns: Turn[] = [];
  const turnDocuments: UnitDocument[] = [];
  const sessionDocuments: UnitDocument[] = [];
  const sampleId = String(raw.sample_id ?? `conv-${index}`);
  for (const s of sessions) {
    const list = conv[`session_${s}`];
    if (!Array.isArray(list)) throw new Error(`${where}: session_${s} is not a list of turns`);
    const when = String(conv[`session_${s}_date_time`] ?? "");
    const inSession: Turn[] = [];
    for (const t of list as Json[]) {
      if (typeof t.text !== "string" || typeof t.speaker !== "string") {
        throw new Error(`${where}: a turn of session_${s} lacks "speaker" or "text"`);
      }
      const id = normaliseId(String(t.dia_id ?? "")) ?? `D${s}:${inSession.length + 1}`;
      const caption = typeof t.blip_caption === "string" ? t.blip_caption : undefined;
      inSession.push({ id, session: s, speaker: t.speaker, text: t.text, caption });
    }
    turns.push(...inSession);
    const dir = `/locomo/${sampleId}/session-${String(s).padStart(2, "0")}`;
    for (const t of inSession) {
      turnDocuments.push({
        unit: t.id,
        path: `${dir}/${t.id.replace(":", "-")}.md`,
        title: `${t.speaker}, ${when || `session ${s}`}`,
        content: spoken(t),
      });
    }
    sessionDocuments.push({
      unit: `S${s}`,
      path: `${dir}.md`,
      title: `Session ${s}: ${when || "undated"}`,
      content: inSession.map((t) => `${t.speaker}: ${spoken(t)}`).join("\n\n"),
    });
  }
  const known = new Set(turns.map((t) => t.id));
  const questions: Question[] = [];
  for (const q of (raw.qa ?? []) as Json[]) {
    const category = Number(q.category);
    if (!ASKED_CATEGORIES.has(category) || typeof q.question !== "string") continue;
    const evidence = Array.isArray(q.evidence) ? q.evidence.map(String) : [];
    const ids = [...new Set(evidence.flatMap(evidenceIds))].filter((id) => known.has(id));
    if (ids.length === 0) continue;
    const sessionsOf = [...new Set(ids.map((id) => `S${id.slice(1, id.indexOf(":"))}`))];
    questions.push({ text: q.question, category, turns: ids, sessions: sessionsOf });
  }
  return { index, sampleId, turns, turnDocuments, sessionDocuments, questions };
}

/** What a turn says, with the caption of a shared image. */
function spoken(t: Turn): string {
  return t.caption ? `${t.text} [shared an image: ${t.caption}]` : t.text;
}

function normaliseId(id: string): string | null {
  return evidenceIds(id)[0] ?? null;
}

/** Every `D<session>:<turn>` in an evidence string, without leading zeros. */
function evidenceIds(s: string): string[] {
  return [...s.matchAll(EVIDENCE_ID)].map((m) => `D${Number(m[1])}:${Number(m[2])}`);
}
