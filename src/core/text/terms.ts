/**
 * @module Word terms for comparing texts: lowercase unicode words without English function words,
 * lightly stemmed so "databases" and "database" meet, and a term-overlap similarity.
 */

/**
 * English function words, contraction pieces and chat filler: they match nearly any text, so
 * comparisons ignore them. Negations are listed too, but `terms` keeps them (as "not").
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  ("a about above after again against all am an and any are as at be because been before being " +
    "below between both but by can could did do does doing down during each few for from further " +
    "had has have having he her here hers herself him himself his how i if in into is it its " +
    "itself just me more most my myself no nor not now of off on once only or other our ours " +
    "ourselves out over own same she should so some such than that the their theirs them " +
    "themselves then there these they this those through to too under until up very was we were " +
    "what when where which while who whom why will with would you your yours yourself yourselves " +
    "also may might must shall us via per yet ever etc let lets get got gets ok okay yes yeah " +
    "please thanks thank hi hello hey im ive id ill youre youve youd youll hes shes its were weve " +
    "wed well theyre theyve theyd theyll thats theres whats whos heres cant cannot dont doesnt " +
    "didnt isnt arent wasnt werent wont wouldnt shouldnt couldnt hasnt havent hadnt mustnt never " +
    "s t d ll re ve m don doesn didn isn aren wasn weren won wouldn shouldn couldn hasn haven hadn")
    .split(" "),
);

/** Words that flip a statement; kept as the single term "not" so "likes" and "doesn't like" differ. */
const NEGATIONS: ReadonlySet<string> = new Set(
  ("no not never nor cannot cant dont doesnt didnt isnt arent wasnt werent wont wouldnt shouldnt " +
    "couldnt hasnt havent hadnt mustnt").split(" "),
);

const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u30fc";
/** A run of CJK characters (no spaces between words), or a word with inner apostrophes. */
const TOKEN = new RegExp(
  `[${CJK}]+|[[\\p{L}\\p{M}\\p{N}]--[${CJK}]]+(?:['’][[\\p{L}\\p{M}\\p{N}]--[${CJK}]]+)*`,
  "gv",
);
const CJK_RUN = new RegExp(`^[${CJK}]`, "v");

/** Lowercase, stopword-free, stemmed word terms of `text`, in order (repeats kept). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const m of text.normalize("NFKC").toLowerCase().matchAll(TOKEN)) {
    const token = m[0];
    if (CJK_RUN.test(token)) {
      // No spaces between CJK words: overlapping character pairs stand in for them.
      if (token.length === 1) out.push(token);
      for (let i = 0; i + 1 < token.length; i++) out.push(token.slice(i, i + 2));
      continue;
    }
    const word = token.replace(/['’]s$/, "").replace(/['’]/g, "");
    if (NEGATIONS.has(word)) out.push("not");
    else if (!STOPWORDS.has(word) && !/^[a-z]$/.test(word)) out.push(stem(word));
  }
  return out;
}

/**
 * How much of `a` is found in `b`: the fraction of a's distinct terms that occur in b, each term
 * weighing `weights.get(term)` (default 1). 0..1; asymmetric; 0 when `a` is empty.
 */
export function overlap(
  a: string[],
  b: string[],
  options: { weights?: ReadonlyMap<string, number> } = {},
): number {
  const inB = new Set(b);
  let total = 0;
  let found = 0;
  for (const term of new Set(a)) {
    const w = options.weights?.get(term) ?? 1;
    total += w;
    if (inB.has(term)) found += w;
  }
  return total > 0 ? found / total : 0;
}

/** The singular of a plain English plural ("libraries" → "library", "boxes" → "box"). */
export function singular(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  if (/[^aeiou]ies$/.test(word) && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:sses|xes|zes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word) && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * A light suffix stemmer: plurals, then -ing / -ed (undoubling "running" → "run"), then a final
 * silent e, so "use", "uses", "used" and "using" all become "us". Only plain a–z words change.
 */
export function stem(word: string): string {
  if (!/^[a-z]+$/.test(word) || word.length < 3) return word;
  let w = singular(word);
  if (/[^aeiou]ied$/.test(w) && w.length > 4) {
    w = `${w.slice(0, -3)}y`;
  } else if (!/eed$/.test(w)) {
    const rest = /^(.+?)(?:ing|ed)$/.exec(w)?.[1];
    if (rest && rest.length >= 2 && /[aeiouy]/.test(rest)) {
      w = /([^aeioulsz])\1$/.test(rest) ? rest.slice(0, -1) : rest;
    }
  }
  return /[^aeiou]e$/.test(w) && w.length >= 3 ? w.slice(0, -1) : w;
}
