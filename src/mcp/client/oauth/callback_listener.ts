/**
 * @module Where the browser comes back to after a login (docs/upstream.md#logging-in): a listener
 * on 127.0.0.1 only, on an ephemeral port unless the server's `oauth.redirect_port` fixes one,
 * answering `/callback`. The callback's `state` must be the one engram sent — anything else is
 * refused by the `state` check, since it may be another site's forged request — and an error the
 * authorization server sent back is reported in its own (escaped) words.
 */
import { EngramError } from "../../../core/errors.ts";
import { OAuthCheckError, upstreamWords } from "./oauth_errors.ts";

/** What one callback brought. */
interface Callback {
  params: URLSearchParams;
}

/** A listening callback endpoint. */
export interface CallbackListener extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/callback`: the redirect URI engram registers and sends. */
  readonly redirectUrl: string;
  /**
   * The authorization code of the next callback, once its `state` is checked against `state`.
   * Rejects on an error callback, a state mismatch, `timeoutMs` passing, or `signal` aborting.
   */
  next(state: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<string>;
  /** Stops listening. */
  close(): Promise<void>;
}

const DONE_PAGE = "engram received the authorization; you may close this tab.\n";

/** Listens on 127.0.0.1:`port` (0: any free port) for the login of upstream `server`. */
export async function listenForCallback(server: string, port: number): Promise<CallbackListener> {
  const arrived: Callback[] = [];
  let wake: (() => void) | null = null;
  const ready = Promise.withResolvers<number>();
  let http: Deno.HttpServer;
  try {
    http = Deno.serve({
      hostname: "127.0.0.1",
      port,
      onListen: ({ port }) => ready.resolve(port),
    }, (request) => {
      const url = new URL(request.url);
      if (url.pathname !== "/callback" || request.method !== "GET") {
        return new Response("not found\n", { status: 404 });
      }
      arrived.push({ params: url.searchParams });
      wake?.();
      const failed = url.searchParams.has("error") || !url.searchParams.has("code");
      return new Response(
        failed ? "engram: the authorization did not succeed; see the terminal.\n" : DONE_PAGE,
        { status: failed ? 400 : 200, headers: { "content-type": "text/plain; charset=utf-8" } },
      );
    });
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse) {
      throw new EngramError(
        "conflict",
        `upstream ${
          JSON.stringify(server)
        }: port ${port} on 127.0.0.1 is in use, so engram cannot receive the login callback there; free it, or change oauth.redirect_port`,
      );
    }
    throw err;
  }
  const bound = await ready.promise;
  const close = async () => {
    await http.shutdown().catch(() => {});
  };
  return {
    redirectUrl: `http://127.0.0.1:${bound}/callback`,
    async next(state, options) {
      if (arrived.length === 0) {
        await new Promise<void>((resolve, reject) => {
          const cleanup = () => {
            clearTimeout(timer);
            options.signal?.removeEventListener("abort", onAbort);
            wake = null;
          };
          const onAbort = () => {
            cleanup();
            reject(
              new EngramError(
                "provider_unavailable",
                String(options.signal?.reason ?? "the login was stopped"),
              ),
            );
          };
          const timer = setTimeout(() => {
            cleanup();
            reject(
              new EngramError(
                "provider_unavailable",
                `upstream ${JSON.stringify(server)}: no login callback came within ${
                  Math.round(options.timeoutMs / 1000)
                } s; run the login again and open the URL it prints`,
              ),
            );
          }, options.timeoutMs);
          wake = () => {
            cleanup();
            resolve();
          };
          if (options.signal?.aborted) onAbort();
          else options.signal?.addEventListener("abort", onAbort, { once: true });
        });
      }
      return codeOf(server, arrived.shift()!.params, state);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The code of a callback whose state matches, or why it is refused. */
function codeOf(server: string, params: URLSearchParams, state: string): string {
  const error = params.get("error");
  if (error !== null) {
    const description = params.get("error_description");
    throw new EngramError(
      "forbidden",
      `upstream ${JSON.stringify(server)}: the authorization server answered the login with ${
        upstreamWords(error, 60)
      }${description ? ` (${upstreamWords(description)})` : ""}`,
    );
  }
  const got = params.get("state");
  if (got !== state) {
    throw new OAuthCheckError(
      server,
      "state",
      got === null
        ? "the callback carried no state"
        : "the callback carried another state than engram sent (a forged or stale callback)",
    );
  }
  const code = params.get("code");
  if (!code) {
    throw new EngramError(
      "forbidden",
      `upstream ${JSON.stringify(server)}: the login callback carried no authorization code`,
    );
  }
  return code;
}
