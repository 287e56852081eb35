/**
 * @module Deterministic synthetic corpus of small markdown notes, and a query set drawn from it.
 *
 * Vocabulary: 102 real English function words (the most frequent ranks, in rough English order)
 * followed by 30,000 synthetic content words built from 1–4 syllables ("dorel", "plistam"), shorter
 * words at the more frequent ranks (Zipf's law of abbreviation).
 * Word ranks follow a Zipf–Mandelbrot law, p(r) ∝ 1 / (r + 2.7)^1.0, as in natural text: the
 * function words make up ~40% of the tokens and a content word of rank r appears roughly 1/r as
 * often as the top content word, so query terms have realistic selectivity.
 *
 * Note `i` depends only on (seed, i): it is generated from its own mulberry32 stream, so a corpus
 * of any size streams without being held in memory and the 10k corpus is a prefix of the 100k one.
 * A note has an H1 title (2–5 content words), 2–5 paragraphs of 2–6 sentences of 6–18 words,
 * an `##` sub-heading before a later paragraph with probability 0.35, a bullet list in ~14% of
 * notes, 0–3 `[[wiki links]]` to the titles of other notes, 1–4 tags (Zipf over 200)
 * and a unique path under /memory/global (60%), /memory/project (30%) or /memory/agent (10%).
 * Notes average ~185 words (~1 KB) and 1.9 chunks.
 */

/** The default seed: every run with it produces byte-identical notes and queries. */
export const DEFAULT_SEED = 0x5eed_2026;

/** A PRNG returning floats in [0, 1). mulberry32: tiny, fast, good enough for synthetic text. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes integers into one 32-bit seed (murmur3 finaliser per step). */
export function mixSeed(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

const FUNCTION_WORDS = (
  "the of and to a in is that for it as was with be on not this are by at from or have an " +
  "they which but we all were there been has when more can if would will their one so what " +
  "also about out up into than them only other its some could these then do two after first " +
  "any most over new now may such should where how our between each because both through " +
  "before same need use used make still while those under just well very even here why did " +
  "much many back does without again next last"
).split(" ");

const ONSETS = "b c d f g h j k l m n p r s t v w z b d k l m n p r s t br ch dr gr pl sh st th tr"
  .split(" ");
const VOWELS = "a e i o u a e i o u ai ea ou io".split(" ");
const CODAS = ["", "", "", "", "", "n", "r", "l", "s", "t", "m", "nd", "rk", "st", "x"];

/** Number of synthetic content words after the function words. */
export const CONTENT_WORDS = 30_000;
const TAG_COUNT = 200;
const ZIPF_S = 1.0;
const ZIPF_Q = 2.7;

/** A vocabulary with a Zipf sampler over its ranks. */
export interface Vocabulary {
  /** Words by rank, most frequent first. */
  words: string[];
  /** Rank of the first content (non-function) word. */
  firstContent: number;
  /** A word rank drawn from the Zipf law, optionally restricted to ranks ≥ `from`. */
  sample(rnd: () => number, from?: number): number;
}

/** Builds the vocabulary for a seed: function words, then unique synthetic words. */
export function buildVocabulary(seed: number): Vocabulary {
  const rnd = mulberry32(mixSeed(seed, 1));
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const seen = new Set(FUNCTION_WORDS);
  const content: { w: string; key: number }[] = [];
  while (content.length < CONTENT_WORDS) {
    const syllables = 1 + (rnd() < 0.7 ? 1 : 0) + (rnd() < 0.3 ? 1 : 0) + (rnd() < 0.1 ? 1 : 0);
    let w = "";
    for (let s = 0; s < syllables; s++) w += pick(ONSETS) + pick(VOWELS) + pick(CODAS);
    if (w.length >= 3 && !seen.has(w)) {
      seen.add(w);
      // Frequent words are short (Zipf's law of abbreviation): rank by length, with jitter.
      content.push({ w, key: w.length + 4 * rnd() });
    }
  }
  content.sort((a, b) => a.key - b.key);
  const words = [...FUNCTION_WORDS, ...content.map((c) => c.w)];
  const cumulative = new Float64Array(words.length);
  let total = 0;
  for (let r = 0; r < words.length; r++) {
    total += 1 / Math.pow(r + ZIPF_Q, ZIPF_S);
    cumulative[r] = total;
  }
  const sample = (rand: () => number, from = 0) => {
    const base = from > 0 ? cumulative[from - 1] : 0;
    const x = base + rand() * (total - base);
    let lo = from;
    let hi = words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return { words, firstContent: FUNCTION_WORDS.length, sample };
}

/** One generated note, ready for `memory_remember`. */
export interface Note {
  path: string;
  content: string;
  tags: string[];
}

/** A deterministic note generator over a vocabulary. */
export class Corpus {
  /** The vocabulary notes are written in. */
  readonly vocab: Vocabulary;
  /** The seed everything derives from. */
  readonly seed: number;
  /** Number of notes; wiki links point inside [0, size). */
  readonly size: number;

  /** A corpus of `size` notes; the vocabulary is built from `seed`. */
  constructor(size: number, seed = DEFAULT_SEED) {
    this.seed = seed;
    this.size = size;
    this.vocab = buildVocabulary(seed);
  }

  /** The title of note `i` (own PRNG stream, so links can name notes not generated yet). */
  title(i: number): string {
    const rnd = mulberry32(mixSeed(this.seed, 2, i));
    const n = 2 + Math.floor(rnd() * 4);
    const ws = Array.from({ length: n }, () => this.#contentWord(rnd));
    return capitalize(ws.join(" "));
  }

  /** Note `i`: depends only on the seed and `i`. */
  note(i: number): Note {
    const rnd = mulberry32(mixSeed(this.seed, 3, i));
    const title = this.title(i);
    const paragraphs: string[] = [];
    const count = 2 + Math.floor(rnd() * 4);
    let links = Math.floor(rnd() * 4);
    for (let p = 0; p < count; p++) {
      if (p > 0 && rnd() < 0.35) {
        paragraphs.push(`## ${capitalize(this.#phrase(rnd, 1 + Math.floor(rnd() * 3)))}`);
      }
      if (p > 0 && rnd() < 0.2 / count) paragraphs.push(this.#list(rnd));
      const sentences: string[] = [];
      for (let s = 2 + Math.floor(rnd() * 5); s > 0; s--) {
        let sentence = this.#sentence(rnd);
        if (links > 0 && rnd() < 0.3) {
          links--;
          sentence = sentence.replace(/\.$/, `, see [[${this.title(this.#other(rnd, i))}]].`);
        }
        sentences.push(sentence);
      }
      paragraphs.push(sentences.join(" "));
    }
    const tagCount = 1 + Math.floor(rnd() * 4);
    const tags = new Set<string>();
    for (let t = 0; t < tagCount; t++) tags.add(this.#tag(rnd));
    const scope = rnd() < 0.6 ? "global" : rnd() < 0.75 ? "project" : "agent";
    const slug = title.toLowerCase().replaceAll(" ", "-");
    return {
      path: `/memory/${scope}/${slug}-${i}.md`,
      content: `# ${title}\n\n${paragraphs.join("\n\n")}\n`,
      tags: [...tags],
    };
  }

  #contentWord(rnd: () => number): string {
    return this.vocab.words[this.vocab.sample(rnd, this.vocab.firstContent)];
  }

  #phrase(rnd: () => number, n: number): string {
    return Array.from({ length: n }, () => this.#contentWord(rnd)).join(" ");
  }

  #sentence(rnd: () => number): string {
    const n = 6 + Math.floor(rnd() * 13);
    const ws = Array.from({ length: n }, () => this.vocab.words[this.vocab.sample(rnd)]);
    return capitalize(ws.join(" ")) + ".";
  }

  #list(rnd: () => number): string {
    const n = 3 + Math.floor(rnd() * 3);
    return Array.from({ length: n }, () => `- ${this.#phrase(rnd, 2 + Math.floor(rnd() * 4))}`)
      .join("\n");
  }

  #tag(rnd: () => number): string {
    let r = this.vocab.sample(rnd, this.vocab.firstContent);
    while (r >= this.vocab.firstContent + TAG_COUNT) {
      r = this.vocab.sample(rnd, this.vocab.firstContent);
    }
    return `t-${this.vocab.words[r]}`;
  }

  #other(rnd: () => number, i: number): number {
    const j = Math.floor(rnd() * (this.size - 1));
    return j >= i ? j + 1 : j;
  }
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Query kinds, with the share of the query set each gets. */
export const QUERY_MIX = {
  "common word": 0.2,
  "mid word": 0.2,
  "rare word": 0.15,
  "two words": 0.2,
  "phrase": 0.1,
  "prefix": 0.05,
  "question": 0.1,
} as const;

/** A kind of query. */
export type QueryKind = keyof typeof QUERY_MIX;

/** One benchmark query. */
export interface Query {
  kind: QueryKind;
  text: string;
}

/**
 * `count` queries drawn deterministically from the corpus: single content words of content rank
 * 0–200 (common), 200–3,000 (mid) and 3,000+ (rare); two content words of one real note (so
 * the all-terms match finds it); a quoted two-word phrase cut from a real note; a 3–4 letter
 * prefix with `*`; and a natural-language question around two words of a note, whose all-terms
 * match fails ("decide" is not in the vocabulary) and falls back to any-term, the expensive path.
 */
export function buildQueries(corpus: Corpus, count: number): Query[] {
  const rnd = mulberry32(mixSeed(corpus.seed, 4, count));
  const { words, firstContent } = corpus.vocab;
  const band = (lo: number, hi: number) =>
    words[firstContent + lo + Math.floor(rnd() * Math.min(hi - lo, CONTENT_WORDS - lo))];
  const note = () => corpus.note(Math.floor(rnd() * corpus.size)).content;
  const make: Record<QueryKind, () => string> = {
    "common word": () => band(0, 200),
    "mid word": () => band(200, 3000),
    "rare word": () => band(3000, CONTENT_WORDS),
    "two words": () => wordsFrom(note(), rnd, corpus.vocab).join(" "),
    "phrase": () => `"${phraseFrom(note(), rnd)}"`,
    "prefix": () => `${band(0, 3000).slice(0, 3 + Math.floor(rnd() * 2))}*`,
    "question": () =>
      `what did we decide about the ${wordsFrom(note(), rnd, corpus.vocab).join(" ")}?`,
  };
  const out: Query[] = [];
  for (const [kind, share] of Object.entries(QUERY_MIX) as [QueryKind, number][]) {
    for (let n = Math.max(1, Math.round(share * count)); n > 0; n--) {
      out.push({ kind, text: make[kind]() });
    }
  }
  // Interleave kinds deterministically so no kind runs while caches are cold or hot only.
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out.slice(0, count);
}

/** Two distinct content words (no function words) from the prose of `content`. */
function wordsFrom(content: string, rnd: () => number, vocab: Vocabulary): string[] {
  const fn = new Set(vocab.words.slice(0, vocab.firstContent));
  const ws = [...new Set(prose(content).filter((w) => !fn.has(w)))];
  const a = Math.floor(rnd() * ws.length);
  const b = (a + 1 + Math.floor(rnd() * Math.max(1, ws.length - 1))) % ws.length;
  return a === b ? [ws[a]] : [ws[a], ws[b]];
}

/** Lowercase words of the prose lines (no headings, lists or wiki links) of `content`. */
function prose(content: string): string[] {
  return content.split("\n").filter((l) => l && !/^(#|- )/.test(l)).join(" ")
    .replace(/\[\[[^\]]*\]\]/g, " ").toLowerCase().match(/[a-z]+/g) ?? [];
}

/** Two consecutive words from a prose line of `content`. */
function phraseFrom(content: string, rnd: () => number): string {
  const lines = content.split("\n").filter((l) => l && !/^(#|- )/.test(l));
  const ws = lines[Math.floor(rnd() * lines.length)].replace(/\[\[[^\]]*\]\]/g, " ")
    .toLowerCase().match(/[a-z]+/g) ?? ["the", "of"];
  const at = Math.floor(rnd() * Math.max(1, ws.length - 1));
  return ws.slice(at, at + 2).join(" ");
}
