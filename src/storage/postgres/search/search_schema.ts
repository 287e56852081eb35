/**
 * @module The PostgreSQL full-text index's schema: a text-search configuration as close to SQLite's
 * `porter unicode61 remove_diacritics 2` as PostgreSQL allows, a weighted `tsvector` column on the
 * chunks with its GIN index, and the word list that prefix search and typo correction read
 * (docs/architecture.md#postgresql-search).
 *
 * - Configuration `engram`: the default parser after ASCII punctuation was turned into spaces
 *   (`engram_search_text`), so `foo-bar`, `user@example.com`, `3.14` and `a_b` are cut into words
 *   as unicode61 cuts them rather than kept as PostgreSQL's hyphenated words, e-mails, hosts and
 *   numbers; `unaccent` (contrib) then a Snowball English stemmer with no stop-word list, since
 *   FTS5's porter tokenizer keeps every word (a query of function words alone is searched as
 *   typed). The stemmer is Snowball's English (Porter2), not the Porter (1980) of FTS5: the two
 *   differ on a few suffixes.
 * - Configuration `engram_words`: the same words unstemmed (`unaccent`, then lowercase), for the
 *   word list (`search_words`) that SQLite keeps in its `chunks_words` vocabulary.
 * - The title is weighted A, the headings B and the body D: `ts_rank` with weights {D 0.2, B 0.5,
 *   A 1} keeps FTS5's 5 : 2.5 : 1.
 * - The word list is counted by one drainer at a time (`engram_drain_search_words`, under an
 *   advisory lock) from a queue the chunk triggers append to: writers never update a shared counter
 *   row, so writers on several nodes never wait on each other for a common word.
 *
 * Kept free of imports: migrations.ts imports it.
 */

/** ASCII punctuation and symbols: what unicode61 separates words on and the parser would keep. */
const ASCII_PUNCTUATION = `!"#$%&''()*+,-./:;<=>?@[\\]^_\`{|}~`;

/** The search index's migration: the configurations, the column, the index and the word list. */
export const SEARCH_MIGRATION = {
  name: "full-text search (tsvector, unaccent, the word list)",
  sql: `
CREATE EXTENSION IF NOT EXISTS unaccent;

CREATE TEXT SEARCH DICTIONARY engram_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION engram (COPY = english);
ALTER TEXT SEARCH CONFIGURATION engram
  ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
  WITH unaccent, engram_stem;
ALTER TEXT SEARCH CONFIGURATION engram ALTER MAPPING FOR numword, numhword, hword_numpart
  WITH unaccent, simple;
CREATE TEXT SEARCH CONFIGURATION engram_words (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION engram_words
  ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword,
    numhword, hword_numpart
  WITH unaccent, simple;

CREATE FUNCTION engram_search_text(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT translate(t, '${ASCII_PUNCTUATION}', repeat(' ', ${
    ASCII_PUNCTUATION.length - 1
  })) $$;

ALTER TABLE chunks ADD COLUMN fts tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('engram', engram_search_text(title)), 'A') ||
  setweight(to_tsvector('engram', engram_search_text(headings)), 'B') ||
  to_tsvector('engram', engram_search_text(body))
) STORED;
CREATE INDEX chunks_fts ON chunks USING gin (fts);

CREATE TABLE search_words (
  word TEXT COLLATE "C" PRIMARY KEY,
  docs integer NOT NULL
);
CREATE TABLE search_word_changes (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  words TEXT[] NOT NULL,
  deltas integer[] NOT NULL
);

CREATE FUNCTION engram_chunk_words(title text, headings text, body text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT tsvector_to_array(to_tsvector('engram_words',
          engram_search_text(title || ' ' || headings || ' ' || body))) $$;

CREATE FUNCTION engram_queue_chunk_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO search_word_changes (words, deltas)
    SELECT array_agg(w ORDER BY w), array_agg(n ORDER BY w)
      FROM (SELECT w, count(*)::integer AS n
              FROM new_rows, unnest(engram_chunk_words(new_rows.title, new_rows.headings, new_rows.body)) AS w
             GROUP BY w) s
    HAVING count(*) > 0;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO search_word_changes (words, deltas)
    SELECT array_agg(w ORDER BY w), array_agg(-n ORDER BY w)
      FROM (SELECT w, count(*)::integer AS n
              FROM old_rows, unnest(engram_chunk_words(old_rows.title, old_rows.headings, old_rows.body)) AS w
             GROUP BY w) s
    HAVING count(*) > 0;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER chunks_words_insert AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engram_queue_chunk_words();
CREATE TRIGGER chunks_words_delete AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engram_queue_chunk_words();
CREATE TRIGGER chunks_words_update AFTER UPDATE ON chunks
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engram_queue_chunk_words();

-- Moves up to batch queued changes into the word list and says how many it moved. Without wait it
-- returns -1 at once when another session is draining; with it, it waits for that drain's batch.
-- The lock keys spell "engr" and 2 (migrations hold 1).
CREATE FUNCTION engram_drain_search_words(batch integer, wait boolean) RETURNS integer
  LANGUAGE plpgsql AS $$
DECLARE
  taken integer;
  emptied TEXT[];
BEGIN
  IF wait THEN
    PERFORM pg_advisory_xact_lock(1701734258, 2);
  ELSIF NOT pg_try_advisory_xact_lock(1701734258, 2) THEN
    RETURN -1;
  END IF;
  WITH batch_rows AS (
    DELETE FROM search_word_changes
     WHERE seq IN (SELECT seq FROM search_word_changes ORDER BY seq LIMIT batch)
    RETURNING words, deltas
  ), summed AS (
    SELECT u.w AS word, sum(u.d)::integer AS delta
      FROM batch_rows, unnest(batch_rows.words, batch_rows.deltas) AS u(w, d)
     GROUP BY u.w
  ), counted AS (
    INSERT INTO search_words AS s (word, docs)
    SELECT word, delta FROM summed ORDER BY word
    ON CONFLICT (word) DO UPDATE SET docs = s.docs + excluded.docs
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM batch_rows), (SELECT array_agg(word) FROM summed WHERE delta < 0)
    INTO taken, emptied;
  IF emptied IS NOT NULL THEN
    DELETE FROM search_words WHERE word = ANY (emptied) AND docs <= 0;
  END IF;
  RETURN taken;
END $$;
`,
} as const;
