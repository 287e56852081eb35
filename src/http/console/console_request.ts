/**
 * @module A signed-in console request as route handlers get it, a route, and matching a path to
 * one. Path parameters (`:brain`, `:id`, `:server`) are one URL segment each, percent-decoded.
 */
import type { HttpSettings } from "../context.ts";
import type { ConsoleActor } from "./console_actor.ts";
import type { ConsoleParts } from "./console_deps.ts";

/** One signed-in request as a handler gets it. */
export interface ConsoleRequest {
  req: Request;
  url: URL;
  params: Record<string, string>;
  actor: ConsoleActor;
  /** The session's CSRF token, for the pages' meta tag. */
  csrf: string;
  parts: ConsoleParts;
  settings: HttpSettings;
  /**
   * Whether the session is still signed in and its token still valid (a long-lived event stream
   * asks before each event, so a sign-out or a revoked token ends it).
   */
  alive: () => Promise<boolean>;
}

/** One route. */
export interface ConsoleRoute {
  method: string;
  /** Segments after the leading `/`, e.g. `console/b/:brain/doc/:id`. */
  pattern: string;
  handler: (r: ConsoleRequest) => Promise<Response>;
}

/** The route a request takes and its parameters, or null. */
export function matchRoute(
  routes: readonly ConsoleRoute[],
  method: string,
  path: string,
): { route: ConsoleRoute; params: Record<string, string> } | null {
  // `/console/b/work/` and `/console/b/work` are the same page.
  const segs = path.replace(/\/+$/, "").split("/").slice(1);
  const want = method === "HEAD" ? "GET" : method;
  for (const route of routes) {
    if (route.method !== want) continue;
    const pattern = route.pattern.split("/");
    if (pattern.length !== segs.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      if (pattern[i].startsWith(":")) {
        try {
          params[pattern[i].slice(1)] = decodeURIComponent(segs[i]);
        } catch {
          ok = false;
        }
      } else ok = pattern[i] === segs[i];
    }
    if (ok) return { route, params };
  }
  return null;
}
