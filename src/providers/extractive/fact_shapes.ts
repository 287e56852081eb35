/**
 * @module Shared pieces of the fact rules: the candidate builder, value guards and how a noun
 * phrase becomes a fact subject ("we", "our project" → "team"; "I" → "user").
 */
import type { FactCandidate } from "../../core/ports/language_model.ts";
import { keyOf } from "./categories.ts";
import { asSentence, type Self, wordCount } from "./phrasing.ts";

/** A rule: the facts one clause states, or none. */
export type FactRule = (clause: string) => FactCandidate[];

/** Longest value kept, in words; longer ones are rarely a single fact. */
export const MAX_VALUE_WORDS = 8;

/** Values that hedge, negate or describe a passing state rather than state a fact. */
const VAGUE =
  /^(?:not|no|no longer|never|n't|being|going|gonna|probably|maybe|kind of|sort of|a bit|a little|too|very|so|that|because|like|just|still|currently being|really|pretty|quite|getting|also|either)\b/i;
/** Objects that point elsewhere ("I like it", "the way you…") name nothing on their own. */
const POINTER =
  /^(?:it|this|that|these|those|them|him|her|you|one|what|how|when|where|why|who|which|whether|the way|the idea|the fact|something|anything|everything|nothing)\b/i;

/** Nouns that stand for the whole team or project. */
const TEAM_NOUNS =
  "project|team|codebase|code base|app|application|repo|repository|stack|company|product|org|organisation|organization|startup";
const TEAM_NOUN = new RegExp(`^(?:${TEAM_NOUNS})$`, "i");

/** A fact with its text made a finished sentence. */
export function fact(
  key: { subject: string; attribute: string; value: string },
  text: string,
): FactCandidate {
  return {
    text: asSentence(text),
    subject: key.subject,
    attribute: key.attribute,
    value: key.value,
  };
}

/** Whether `value` is a usable fact value: present, short, not hedged and not a pronoun. */
export function usable(value: string, options: { maxWords?: number } = {}): boolean {
  return value.length > 0 && wordCount(value) <= (options.maxWords ?? MAX_VALUE_WORDS) &&
    !VAGUE.test(value) && !POINTER.test(value);
}

/** Who a subject phrase is: key, how a sentence names it, and whose pronouns it owns. */
export interface Subject {
  key: string;
  text: string;
  self?: Self;
}

/** "we" → team, "I" → user, "our project" → team, "the backend" → "backend"; else null. */
export function subjectOf(phrase: string): Subject | null {
  const p = phrase.trim();
  if (/^we$/i.test(p)) return { key: "team", text: "the team", self: "team" };
  if (/^i$/i.test(p)) return { key: "user", text: "the user", self: "user" };
  const np = /^(?:the|our|this|my)\s+(.+)$/i.exec(p)?.[1];
  if (!np || wordCount(np) > 4 || POINTER.test(np)) return null;
  if (TEAM_NOUN.test(np)) return { key: "team", text: `the ${np}`, self: "team" };
  const owner = /^our\s/i.test(p) ? "the team's" : /^my\s/i.test(p) ? "the user's" : "the";
  return { key: keyOf(np), text: `${owner} ${np}` };
}

/** Whether a noun names the whole team or project. */
export function isTeamNoun(noun: string): boolean {
  return TEAM_NOUN.test(noun.trim());
}
