/**
 * @module Wording for extracted facts: clean values, first person turned into third ("my" → "the
 * user's"), verbs agreed with the new subject, and a finished sentence.
 */

/** Whose words are rewritten: pronouns of this subject become "they"/"it" forms. */
export type Self = "user" | "team";

/** Verbs that take no -s after a third-person subject. */
const MODALS: ReadonlySet<string> = new Set(
  ("will would can could should must might may shall did had was were used went made got said " +
    "took came saw knew thought told became left felt brought began kept held wrote stood heard " +
    "meant met ran paid sat spoke led grew lost fell sent built understood broke spent chose " +
    "bought drove wore").split(" "),
);
const ADVERBS =
  "always|never|usually|often|also|still|now|just|really|only|sometimes|mostly|rarely";

/** Pronoun rewrites for each self; `null` self means neither user nor team is the subject. */
function pronouns(self: Self | null): [RegExp, string][] {
  const user = self === "user";
  const team = self === "team";
  return [
    [/\bI(?:'m| am)\b/g, user ? "they are" : "the user is"],
    [/\bI(?:'ve| have)\b/g, user ? "they have" : "the user has"],
    [/\bI'll\b/g, user ? "they will" : "the user will"],
    [/\bI'd\b/g, user ? "they would" : "the user would"],
    [/\bI was\b/g, user ? "they were" : "the user was"],
    [/\bI\b/g, user ? "they" : "the user"],
    [/\bmy\b/gi, user ? "their" : "the user's"],
    [/\bmine\b/gi, user ? "theirs" : "the user's"],
    [/\b(?:me|myself)\b/gi, user ? "them" : "the user"],
    [/\bwe(?:'re| are)\b/gi, team ? "they are" : "the team is"],
    [/\bwe(?:'ve| have)\b/gi, team ? "they have" : "the team has"],
    [/\bwe'll\b/gi, team ? "they will" : "the team will"],
    [/\bwe were\b/gi, team ? "they were" : "the team was"],
    [/\bwe\b/gi, team ? "they" : "the team"],
    [/\bour\b/gi, team ? "its" : "the team's"],
    [/\bours\b/gi, team ? "its" : "the team's"],
    // Lowercase only: "US" is usually the country.
    [/\bus\b/g, team ? "them" : "the team"],
  ];
}

/** `text` with first-person words in the third person; verbs after a new singular subject agree. */
export function thirdPerson(text: string, options: { self?: Self } = {}): string {
  let out = text;
  const marked: string[] = [];
  for (const [pattern, replacement] of pronouns(options.self ?? null)) {
    out = out.replace(pattern, () => {
      // A placeholder keeps later patterns from rewriting what was already rewritten.
      marked.push(replacement);
      return `\uE000${marked.length - 1}\uE001`;
    });
  }
  out = out.replace(
    new RegExp(`\\uE000(\\d+)\\uE001(\\s+(?:(?:${ADVERBS})\\s+)?)([a-z]+)\\b`, "g"),
    (all, index: string, gap: string, verb: string) => {
      const subject = marked[Number(index)];
      if (!/^the (?:user|team)$/.test(subject) || MODALS.has(verb) || /ed$/.test(verb)) return all;
      return `\uE000${index}\uE001${gap}${conjugate(verb)}`;
    },
  );
  return out.replace(/\uE000(\d+)\uE001/g, (_, index: string) => marked[Number(index)]);
}

/** The third-person singular of a present-tense verb ("have" → "has", "go" → "goes"). */
export function conjugate(verb: string): string {
  const irregular: Record<string, string> = {
    have: "has",
    do: "does",
    are: "is",
    am: "is",
    be: "is",
  };
  if (irregular[verb]) return irregular[verb];
  if (/(?:s|sh|ch|x|z|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** A value as said, without wrapping quotes, trailing punctuation or extra spaces. */
export function cleanValue(value: string): string {
  return value.replace(/\s+/g, " ").trim().replace(/[\s.,;:!]+$/, "")
    .replace(/^["'“‘(]+|["'”’)]+$/g, "").trim();
}

/** `value` up to the first clause break (", but", " because", " which", …). */
export function firstClause(value: string, options: { andBreaks?: boolean } = {}): string {
  const breaks = options.andBreaks
    ? /,?\s+(?:and|but|so|because|since|which|who|where|though|although|while)\s.*$|[,;:]\s.*$/i
    : /,?\s+(?:but|so|because|since|which|who|where|though|although|while)\s.*$|;\s.*$/i;
  return cleanValue(value.replace(breaks, ""));
}

/** `text` cut to at most `max` characters at a word boundary. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1).replace(/\s+\S*$/, "");
  return cut.length > 0 ? cut : text.slice(0, max);
}

/** Words in a phrase. */
export function wordCount(phrase: string): number {
  return phrase.split(/\s+/).filter(Boolean).length;
}

/** A finished sentence: capitalised, ending in a full stop. */
export function asSentence(text: string): string {
  const body = text.replace(/\s+/g, " ").trim().replace(/[,;:]+$/, "");
  const capital = body.charAt(0).toUpperCase() + body.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
