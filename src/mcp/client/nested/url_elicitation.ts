/**
 * @module An upstream's "URL elicitation required" (-32042): the call cannot proceed until the
 * user finishes something in a browser. engram shows each URL through the host's `elicit`, waits
 * for `notifications/elicitation/complete` of each accepted one, then the caller retries once.
 * Completions are recorded by id as they arrive, because one can come before the wait begins.
 */
import { EngramError } from "../../../core/errors.ts";
import type { ElicitRequestURLParams } from "../../sdk.ts";
import type { ElicitFn } from "./nested_requests.ts";
import { neutralise } from "../upstream_text.ts";

/** How many completed ids are remembered (older ones are forgotten first). */
const REMEMBERED = 256;

/** Completed URL elicitations of one session, and waiters for the ones still open. */
export class ElicitationCompletions {
  readonly #done = new Set<string>();
  readonly #waiters = new Map<string, (() => void)[]>();

  /** Records `notifications/elicitation/complete` for `id`. */
  complete(id: string): void {
    this.#done.add(id);
    if (this.#done.size > REMEMBERED) this.#done.delete(this.#done.values().next().value!);
    for (const wake of this.#waiters.get(id) ?? []) wake();
    this.#waiters.delete(id);
  }

  /** Resolves true when `id` is complete, false when `signal` aborts first. */
  wait(id: string, signal: AbortSignal): Promise<boolean> {
    if (this.#done.has(id)) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      };
      const onAbort = () => {
        const list = this.#waiters.get(id)?.filter((w) => w !== wake) ?? [];
        if (list.length) this.#waiters.set(id, list);
        else this.#waiters.delete(id);
        resolve(false);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.set(id, [...(this.#waiters.get(id) ?? []), wake]);
    });
  }
}

/**
 * The one way asking can fail short of an answer: whoever engram asks (the agent's client) cannot
 * show a URL — it declared form-only elicitation, or none. `forbidden`, naming the capability.
 */
function cannotShowUrl(
  who: string,
  o: { what: string; url: string; error: unknown },
): EngramError {
  const why = o.error instanceof EngramError
    ? o.error.message
    : /URL elicitation/i.test(String((o.error as Error)?.message))
    ? "it did not declare elicitation.url (it takes forms only)"
    : neutralise(String((o.error as Error)?.message ?? o.error));
  return new EngramError(
    "forbidden",
    `${who} needs the user to finish a step in a browser before ${o.what} (${
      neutralise(o.url)
    }), and the client connected to engram cannot show it: ${why}; use a client that declares the URL mode of elicitation (capabilities.elicitation.url), or run the call from a terminal: engram mcp call`,
  );
}

/** What resolving a -32042 needs. */
export interface UrlElicitationContext {
  server: string;
  /** What was being done, for messages (e.g. `tools/call "deploy"`). */
  what: string;
  elicit: ElicitFn | undefined;
  completions: ElicitationCompletions;
  /** How long to wait for the user to finish in the browser. */
  waitMs: number;
  signal?: AbortSignal;
}

/**
 * Shows each URL and waits for each to be completed. Throws `forbidden` when the user declines or
 * nobody can be asked, and `provider_unavailable` when a completion does not come in time.
 */
export async function resolveUrlElicitations(
  elicitations: ElicitRequestURLParams[],
  context: UrlElicitationContext,
): Promise<void> {
  const who = `upstream ${JSON.stringify(context.server)}`;
  if (!context.elicit || elicitations.length === 0) {
    const first = elicitations[0];
    throw new EngramError(
      "forbidden",
      `${who} needs the user to finish a step in a browser before ${context.what}${
        first ? ` (${neutralise(first.url)})` : ""
      }, and nobody can be asked here; run the call from a terminal: engram mcp call`,
    );
  }
  const deadline = AbortSignal.timeout(context.waitMs);
  const signal = context.signal ? AbortSignal.any([deadline, context.signal]) : deadline;
  for (const params of elicitations) {
    let result;
    try {
      result = await context.elicit({ ...params, mode: "url" }, { server: context.server, signal });
    } catch (error) {
      if (signal.aborted) throw error;
      throw cannotShowUrl(who, { what: context.what, url: params.url, error });
    }
    if (result.action !== "accept") {
      throw new EngramError(
        "forbidden",
        `${who} needs the user to finish a step in a browser before ${context.what}, and it was ${
          result.action === "decline" ? "declined" : "cancelled"
        }`,
      );
    }
  }
  for (const params of elicitations) {
    if (!await context.completions.wait(params.elicitationId, signal)) {
      const why = context.signal?.aborted
        ? "the call was cancelled"
        : `${context.waitMs} ms passed`;
      throw new EngramError(
        "provider_unavailable",
        `${who} did not confirm browser step ${
          JSON.stringify(neutralise(params.elicitationId))
        } before ${why} (no notifications/elicitation/complete); try the call again once it is done`,
      );
    }
  }
}
