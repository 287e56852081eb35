/**
 * @module An Embedder on an OpenAI-compatible `/embeddings` endpoint: batched requests, vectors
 * returned in input order whatever order the server lists them in.
 */
import type { Embedder } from "../core/ports/language_model.ts";
import type { HttpClient } from "./http_client.ts";

/** Options for `OpenAiEmbedder`. */
export interface OpenAiEmbedderOptions {
  /** Provider name, for errors and logs. */
  name: string;
  /** The full embeddings URL, e.g. "http://127.0.0.1:11434/v1/embeddings". */
  url: string;
  /** Embedding model id. */
  model: string;
  /** Texts per request (default 64). */
  batchSize?: number;
}

/** The `data` items of an embeddings reply. */
interface EmbeddingItem {
  index?: unknown;
  embedding?: unknown;
}

/** Embeds texts through an OpenAI-compatible API, sharing the provider's HTTP client. */
export class OpenAiEmbedder implements Embedder {
  /** Provider name. */
  readonly name: string;
  /** Embedding model id. */
  readonly model: string;
  readonly #http: HttpClient;
  readonly #url: string;
  readonly #batchSize: number;

  constructor(http: HttpClient, options: OpenAiEmbedderOptions) {
    this.#http = http;
    this.name = options.name;
    this.model = options.model;
    this.#url = options.url;
    this.#batchSize = Math.max(1, options.batchSize ?? 64);
  }

  /** One vector per text, in input order. */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#batchSize) {
      const batch = texts.slice(start, start + this.#batchSize);
      out.push(...await this.#embedBatch(batch, signal));
    }
    return out;
  }

  async #embedBatch(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const reply = await this.#http.postJson(
      this.#url,
      { model: this.model, input, encoding_format: "float" },
      { signal },
    ) as { data?: unknown };
    const data = reply?.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw this.#http.error(
        `bad embeddings reply: expected ${input.length} vectors, got ${
          Array.isArray(data) ? data.length : "none"
        }`,
      );
    }
    const vectors: Float32Array[] = new Array(input.length);
    let dims: number | undefined;
    data.forEach((item: EmbeddingItem, position) => {
      // Servers give `index`; without one, list order is all there is.
      const index = item?.index === undefined ? position : item.index;
      const embedding = item?.embedding;
      if (
        typeof index !== "number" || !Number.isInteger(index) || index < 0 ||
        index >= input.length || vectors[index] !== undefined
      ) {
        throw this.#http.error(`bad embeddings reply: bad or repeated index ${index}`);
      }
      if (!Array.isArray(embedding) || embedding.some((x) => typeof x !== "number")) {
        throw this.#http.error(`bad embeddings reply: item ${index} has no numeric embedding`);
      }
      if (dims !== undefined && embedding.length !== dims) {
        throw this.#http.error("bad embeddings reply: vectors of different lengths");
      }
      dims = embedding.length;
      vectors[index] = Float32Array.from(embedding);
    });
    return vectors;
  }
}
