/**
 * @module English function words for query processing: the Snowball English stop list (Porter's
 * list for the Snowball stemmer project, snowballstem.org/algorithms/english/stop.txt), as the
 * `@orama/stopwords` package ships it, plus the pieces its contractions fall into once a tokenizer
 * splits them at the apostrophe, as FTS5's unicode61 does ("don't" → "don", "t").
 */
import { stopwords } from "@orama/stopwords/english";

/** "won't" splits into "won", a content word of its own; it is not a function word. */
const CONTENT_PIECES = new Set(["won"]);

/** Lowercase English function words (pronouns, auxiliaries, determiners, question words, …). */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  stopwords.flatMap((w: string) => [
    w,
    ...w.split("'").filter((piece) => piece !== "" && !CONTENT_PIECES.has(piece)),
  ]),
);
