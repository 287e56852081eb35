/**
 * @module The HTTP layer both language-model providers share: JSON POSTs with a timeout to the
 * response headers and between body chunks, the caller's AbortSignal, retries with backoff on
 * 408 / 429 / 5xx / network errors, and translation of every failure into an EngramError whose
 * message names the provider, its URL and the cause (never the API key).
 */
import { EngramError, type ErrorCode } from "../core/errors.ts";
import { Timeout, Watchdog } from "./request_watchdog.ts";

/** Where a provider's requests go and how patiently. */
export interface HttpClientOptions {
  /** The provider's configured name, used in every error message. */
  name: string;
  /** The provider's base URL, used in every error message. */
  baseUrl: string;
  /** Headers sent with every request; auth header values are kept out of messages. */
  headers?: Record<string, string>;
  /** Bounds both the wait for response headers and each silence between body chunks (60000). */
  timeoutMs?: number;
  /** Retries after the first attempt on 408 / 429 / 5xx / network errors (default 2). */
  maxRetries?: number;
  /** First backoff delay in ms; doubles per retry, with jitter (default 500). */
  retryBaseMs?: number;
  /** Cap on a server's Retry-After wait in ms (default 30000). */
  maxRetryAfterMs?: number;
}

/** Per-request options. */
export interface PostOptions {
  /** Cancels the request and its body; the rejection is the signal's reason, never retried. */
  signal?: AbortSignal;
}

/** A successful response whose body is still to be read. */
export interface StreamReply {
  contentType: string;
  /** The guarded body: a silence longer than the timeout or a cut connection errors it. */
  body: ReadableStream<Uint8Array>;
}

/** Headers whose values are secrets. */
const SECRET_HEADERS = new Set(["authorization", "x-api-key", "api-key"]);

/** Posts JSON to one provider with its timeouts, retries and error messages. */
export class HttpClient {
  readonly #options: Required<Omit<HttpClientOptions, "headers">>;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];

  constructor(options: HttpClientOptions) {
    this.#options = {
      name: options.name,
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs ?? 60_000,
      maxRetries: Math.max(0, options.maxRetries ?? 2),
      retryBaseMs: options.retryBaseMs ?? 500,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
    };
    this.#headers = { "content-type": "application/json", ...options.headers };
    this.#secrets = secretValues(this.#headers);
  }

  /** POSTs `body` and parses the whole JSON reply. */
  async postJson(url: string, body: unknown, options: PostOptions = {}): Promise<unknown> {
    const reply = await this.postStream(url, body, options);
    const text = await readText(reply.body);
    try {
      return JSON.parse(text);
    } catch {
      throw this.error(`the reply is not JSON: ${snippet(text)}`);
    }
  }

  /**
   * POSTs `body` and returns once the response headers arrive. Retries happen only here, before
   * any of the body has reached the caller.
   */
  async postStream(url: string, body: unknown, options: PostOptions = {}): Promise<StreamReply> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (!URL.canParse(url)) throw this.error(`not a valid URL: ${url}`);
    const payload = JSON.stringify(body);
    const attempts = this.#options.maxRetries + 1;
    const translate = (err: unknown) => this.#bodyError(err, signal);
    for (let attempt = 1;; attempt++) {
      const watchdog = new Watchdog(this.#options.timeoutMs, signal);
      let retryAfterMs: number | undefined;
      try {
        watchdog.arm("a response");
        const response = await watchdog.guard(fetch(url, {
          method: "POST",
          headers: this.#headers,
          body: payload,
          signal: watchdog.signal,
        }));
        const contentType = response.headers.get("content-type") ?? "";
        if (response.ok) return { contentType, body: watchdog.wrap(response.body, translate) };
        // Error bodies are read under the same timeout; the watchdog is done when they end.
        const text = await readText(watchdog.wrap(response.body, translate));
        const status = `HTTP ${response.status}${
          response.statusText ? ` ${response.statusText}` : ""
        }`;
        if (!isRetryableStatus(response.status) || attempt === attempts) {
          throw this.#statusError(response.status, { status, body: text, attempt });
        }
        retryAfterMs = parseRetryAfter(response.headers);
      } catch (err) {
        watchdog.dispose();
        if (err instanceof EngramError) throw err;
        if (signal?.aborted) throw signal.reason;
        if (err instanceof Timeout) throw this.#timeoutError(err);
        if (attempt === attempts) {
          throw this.error(withAttempts(`connection failed`, attempt) + `: ${errorMessage(err)}`, {
            cause: err,
          });
        }
      }
      await sleep(this.#backoff(attempt, retryAfterMs), signal);
    }
  }

  /** An EngramError naming this provider and its URL, its text redacted of secrets. */
  error(cause: string, options: { code?: ErrorCode; cause?: unknown } = {}): EngramError {
    let message = `provider "${this.#options.name}" (${this.#options.baseUrl}) failed: ${cause}`;
    for (const secret of this.#secrets) message = message.replaceAll(secret, "[redacted]");
    return new EngramError(options.code ?? "provider_unavailable", message, {
      cause: options.cause,
    });
  }

  #timeoutError(err: Timeout): EngramError {
    return this.error(
      `timed out after ${this.#options.timeoutMs} ms waiting for ${err.waitingFor}`,
    );
  }

  /** What a failed body read becomes: the caller's abort reason, a timeout or a cut stream. */
  #bodyError(err: unknown, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return signal.reason;
    if (err instanceof Timeout) return this.#timeoutError(err);
    return this.error(`stream ended midway: ${errorMessage(err)}`, { cause: err });
  }

  /** The error for a final non-2xx status. */
  #statusError(
    code: number,
    reply: { status: string; body: string; attempt: number },
  ): EngramError {
    if (code === 401 || code === 403) {
      // The API's own text is left out: some echo a masked form of the key back.
      return this.error(`${reply.status}: the API key was rejected; check api_key in the config`);
    }
    const detail = apiErrorMessage(reply.body);
    const cause = withAttempts(reply.status, reply.attempt) + (detail ? `: ${detail}` : "");
    return this.error(cause, { code: code === 429 ? "rate_limited" : "provider_unavailable" });
  }

  /** Milliseconds to wait before attempt `attempt + 1`. */
  #backoff(attempt: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, this.#options.maxRetryAfterMs);
    const base = this.#options.retryBaseMs * 2 ** (attempt - 1);
    // Jitter in [base/2, base) keeps clients that failed together from retrying together.
    return base / 2 + Math.random() * (base / 2);
  }
}

/** Reads a whole body as UTF-8 text. */
export async function readText(body: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(body).text();
}

/** The API's own error text from a JSON error body (OpenAI, Anthropic, Ollama shapes), else a snippet. */
export function apiErrorMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body);
    const error = parsed?.error;
    if (typeof error === "string") return snippet(error);
    if (typeof error?.message === "string") return snippet(error.message);
    if (typeof parsed?.message === "string") return snippet(parsed.message);
    if (typeof parsed?.detail === "string") return snippet(parsed.detail);
  } catch {
    // Not JSON: a proxy's page or plain text; fall through to a snippet of it.
  }
  const text = snippet(body);
  return text === "" ? undefined : text;
}

/** Retry-After (seconds or an HTTP date) or OpenAI's retry-after-ms, in ms; undefined if absent. */
export function parseRetryAfter(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

function withAttempts(cause: string, attempt: number): string {
  return attempt > 1 ? `${cause} after ${attempt} attempts` : cause;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** One line of at most 200 characters. */
function snippet(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Secret header values, and for "Bearer x" also x, so neither form reaches a message. */
function secretValues(headers: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!SECRET_HEADERS.has(name.toLowerCase()) || value === "") continue;
    out.push(value);
    const token = value.replace(/^Bearer\s+/i, "");
    if (token !== value && token !== "") out.push(token);
  }
  // Longest first, so "Bearer x" is replaced whole before x alone.
  return out.sort((a, b) => b.length - a.length);
}

/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
