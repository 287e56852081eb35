/**
 * @module Rule-based fact extraction: each user statement (and, for team facts only, assistant
 * statement) is split into clauses and matched against the person and team rules. Questions,
 * hypotheticals, system and tool messages state nothing.
 */
import type { ConversationMessage, FactCandidate } from "../../core/ports/language_model.ts";
import { splitSentences } from "../../core/text/sentences.ts";
import { keyOf } from "./categories.ts";
import { fact, usable } from "./fact_shapes.ts";
import { personFacts } from "./person_rules.ts";
import { cleanValue, clip, thirdPerson } from "./phrasing.ts";
import { teamFacts } from "./team_rules.ts";

/** Openings that ask rather than tell. */
const QUESTION =
  /^(?:do|does|did|is|are|am|was|were|can|could|should|would|will|shall|have|has|what|which|who|whom|whose|where|when|why|how|may|might|any idea)\b/i;
/** Words that make a statement conditional, hedged or imagined. */
const HYPOTHETICAL =
  /\b(?:if|suppose|supposing|imagine|hypothetically|would|could|might|maybe|perhaps|unless|whether|wonder|wondering|assuming|let's say|in case)\b|\b\w+'d\b/i;
/** Filler before the statement proper ("Oh, and btw, …"). */
const LEAD =
  /^(?:(?:also|and|but|so|oh|ok|okay|btw|fyi|actually|anyway|well|yes|yeah|yep|no|nope|hi|hey|hello|great|thanks|cool|sure|alright|hmm|by the way|just so you know|for the record|for context|for reference|as a reminder|thank you|one more thing)\b[,:!.\-–—]*\s+|(?:important|update|correction|ps)[,:!\-–—]+\s+)+/i;
/** Clause breaks before a new first-person statement ("I'm Ada and I work at Acme"). */
const CLAUSE_BREAK =
  /\s*;\s*|,?\s+(?:and also|and|but|also)\s+(?=(?:I|I'm|I've|we|we're|we've|my|our)\b)|,\s+(?=(?:I|I'm|I've|we|we're|we've|my|our)\s)/;
const REMEMBER =
  /^(?:please )?(?:remember|keep in mind|don't forget|do not forget|never forget|note|for future reference)(?: that\b|\s*[:,])\s*(.+)$/i;

/** Facts stated in a conversation, without repeats; a later value for the same key wins. */
export function extractFacts(messages: ConversationMessage[]): FactCandidate[] {
  const found = new Map<string, FactCandidate>();
  for (const message of messages) {
    if (message.role !== "user" && message.role !== "assistant") continue;
    for (const sentence of splitSentences(message.content)) {
      if (sentence.kind === "heading" || sentence.kind === "row") continue;
      if (/\?["')\]]*$/.test(sentence.text) || HYPOTHETICAL.test(sentence.text)) continue;
      for (const clause of clausesOf(sentence.text)) {
        for (const f of clauseFacts(clause, message.role === "assistant")) {
          const key = `${normal(f.subject)}|${normal(f.attribute)}`;
          // Re-inserting moves the key to the end: the order is that of the latest statements.
          found.delete(key);
          found.set(key, f);
        }
      }
    }
  }
  return [...found.values()];
}

/** The statements in a sentence, quotes and emphasis normalised, filler and end marks dropped. */
function clausesOf(sentence: string): string[] {
  const plain = sentence.replace(/[’‘]/g, "'").replace(/[“”]/g, '"').replace(/\*\*|__|`/g, "")
    .replace(/\s+/g, " ").trim()
    // One spelling of each contraction keeps the rules short.
    .replace(/\b(I|we|you|they)'re\b/gi, "$1 are").replace(/\bI'm\b/gi, "I am")
    .replace(/\b(I|we|you|they)'ve\b/gi, "$1 have");
  return plain.split(CLAUSE_BREAK)
    .map((c) => c.replace(LEAD, "").replace(/[\s.!]+$/, "").trim())
    .filter((c) => c.length > 0);
}

function clauseFacts(clause: string, assistant: boolean): FactCandidate[] {
  if (QUESTION.test(clause)) return [];
  if (assistant) return teamFacts(clause, { assistant });
  const remember = REMEMBER.exec(clause);
  if (!remember) return ruleFacts(clause);
  const inner = remember[1].replace(LEAD, "");
  if (QUESTION.test(inner)) return [];
  const facts = ruleFacts(inner);
  return facts.length > 0 ? facts : noteFact(inner);
}

function ruleFacts(clause: string): FactCandidate[] {
  const person = personFacts(clause);
  return person.length > 0 ? person : teamFacts(clause);
}

/** Something the user asked to remember that no rule understands: a note keyed by its wording. */
function noteFact(clause: string): FactCandidate[] {
  const value = thirdPerson(cleanValue(clause));
  if (!usable(value, { maxWords: 40 })) return [];
  return [fact({ subject: "note", attribute: clip(keyOf(value), 80), value }, value)];
}

/** Like core's fact key: lowercase letters and digits, single-spaced. */
function normal(s: string): string {
  return s.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}
