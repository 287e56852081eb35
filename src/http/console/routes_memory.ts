/**
 * @module The memory routes: the pages (brains, overview, search, timeline, a document, a diff, the
 * edit form) and their JSON API under `/console/api/` (the same actions, as data).
 */
import { z } from "zod";
import { EngramError } from "../../core/errors.ts";
import type { Brain } from "../../core/types.ts";
import { parseInput } from "../../core/validate.ts";
import { apiJson, htmlResponse, jsonBody } from "./console_http.ts";
import type { ConsoleRequest, ConsoleRoute } from "./console_request.ts";
import type { SafeHtml } from "./html.ts";
import { page } from "./layout.ts";
import {
  brainOf,
  brainOverview,
  documentView,
  editDocument,
  forgetDocument,
  listBrains,
  restoreDocument,
  search,
  type SearchFilters,
  timeline,
  versionDiff,
} from "./memory_actions.ts";
import { diffBody, documentBody, editBody } from "./pages_document.ts";
import { brainEvents, brainsBody, overviewBody, searchBody, timelineBody } from "./pages_memory.ts";

/** An HTML page of the signed-in console. */
export function consolePage(
  r: ConsoleRequest,
  o: { title: string; body: SafeHtml; brain?: Brain; current?: string; live?: string },
): Response {
  return htmlResponse(page({ ...o, actor: r.actor, csrf: r.csrf }));
}

/** The brain a route names (`no_brain` when the token may not see it). */
export function routeBrain(r: ConsoleRequest): Promise<Brain> {
  return brainOf(r.actor, r.params.brain);
}

function filtersOf(url: URL): SearchFilters {
  const p = (k: string) => url.searchParams.get(k)?.trim() || undefined;
  return {
    query: p("q") ?? "",
    tag: p("tag"),
    path: p("path"),
    source: p("source"),
    since: p("since"),
    until: p("until"),
  };
}

/** A positive whole number from the query string, or undefined when absent. */
export function numberParam(url: URL, key: string): number | undefined {
  const raw = url.searchParams.get(key);
  if (raw === null || raw === "") return undefined;
  if (!/^[1-9]\d{0,8}$/.test(raw)) {
    throw new EngramError("invalid_argument", `${key} must be a whole number from 1, not "${raw}"`);
  }
  return Number(raw);
}

function diffRange(url: URL): { from: number; to: number } {
  const from = numberParam(url, "from");
  const to = numberParam(url, "to");
  if (from === undefined || to === undefined) {
    throw new EngramError("invalid_argument", "give both versions to compare: ?from=N&to=M");
  }
  return { from, to };
}

const EditInput = z.object({
  content: z.string().min(1).optional(),
  title: z.string().min(1).optional(),
  tags: z.array(z.string()).optional(),
}).strict();

/** The memory routes. */
export const MEMORY_ROUTES: readonly ConsoleRoute[] = [
  {
    method: "GET",
    pattern: "console",
    handler: async (r) =>
      consolePage(r, { title: "Brains", body: await brainsBody(r.actor), current: "brains" }),
  },
  {
    method: "GET",
    pattern: "console/b/:brain",
    handler: async (r) => {
      const brain = await routeBrain(r);
      return consolePage(r, {
        title: brain.name,
        brain,
        body: await overviewBody(r.actor, brain),
        live: brainEvents(brain),
      });
    },
  },
  {
    method: "GET",
    pattern: "console/b/:brain/search",
    handler: async (r) => {
      const brain = await routeBrain(r);
      const f = filtersOf(r.url);
      return consolePage(r, {
        title: f.query ? `Search: ${f.query}` : "Search",
        brain,
        current: "search",
        body: await searchBody(r.actor, brain, f),
      });
    },
  },
  {
    method: "GET",
    pattern: "console/b/:brain/timeline",
    handler: async (r) => {
      const brain = await routeBrain(r);
      return consolePage(r, {
        title: "Timeline",
        brain,
        current: "timeline",
        body: await timelineBody(r.actor, brain),
        live: brainEvents(brain),
      });
    },
  },
  {
    method: "GET",
    pattern: "console/b/:brain/doc/:id",
    handler: async (r) => {
      const brain = await routeBrain(r);
      const { title, body } = await documentBody(r.actor, brain, {
        id: r.params.id,
        version: numberParam(r.url, "version"),
      });
      return consolePage(r, { title, brain, body, live: brainEvents(brain) });
    },
  },
  {
    method: "GET",
    pattern: "console/b/:brain/doc/:id/diff",
    handler: async (r) => {
      const brain = await routeBrain(r);
      const { title, body } = await diffBody(r.actor, brain, {
        id: r.params.id,
        ...diffRange(r.url),
      });
      return consolePage(r, { title, brain, body });
    },
  },
  {
    method: "GET",
    pattern: "console/b/:brain/doc/:id/edit",
    handler: async (r) => {
      const brain = await routeBrain(r);
      if (!r.actor.can("write")) {
        throw new EngramError(
          "forbidden",
          `editing needs tier write; this token is tier ${r.actor.grant.tier}`,
        );
      }
      const { title, body } = await editBody(r.actor, brain, r.params.id);
      return consolePage(r, { title, brain, body });
    },
  },
  // The JSON API.
  {
    method: "GET",
    pattern: "console/api/brains",
    handler: async (r) => apiJson({ items: await listBrains(r.actor) }),
  },
  {
    method: "GET",
    pattern: "console/api/b/:brain/overview",
    handler: async (r) => apiJson(await brainOverview(r.actor, await routeBrain(r))),
  },
  {
    method: "GET",
    pattern: "console/api/b/:brain/search",
    handler: async (r) => apiJson(await search(r.actor, await routeBrain(r), filtersOf(r.url))),
  },
  {
    method: "GET",
    pattern: "console/api/b/:brain/timeline",
    handler: async (r) =>
      apiJson(
        await timeline(r.actor, await routeBrain(r), {
          limit: Math.min(numberParam(r.url, "limit") ?? 100, 500),
        }),
      ),
  },
  {
    method: "GET",
    pattern: "console/api/b/:brain/doc/:id",
    handler: async (r) =>
      apiJson(
        await documentView(r.actor, await routeBrain(r), {
          id: r.params.id,
          version: numberParam(r.url, "version"),
        }),
      ),
  },
  {
    method: "GET",
    pattern: "console/api/b/:brain/doc/:id/diff",
    handler: async (r) =>
      apiJson(
        await versionDiff(r.actor, await routeBrain(r), { id: r.params.id, ...diffRange(r.url) }),
      ),
  },
  {
    method: "PATCH",
    pattern: "console/api/b/:brain/doc/:id",
    handler: async (r) => {
      const brain = await routeBrain(r);
      const edit = parseInput(
        EditInput,
        await jsonBody(r.req, r.settings.max_body_bytes),
        "console edit",
      );
      return apiJson(await editDocument(r.actor, brain, { id: r.params.id, edit }));
    },
  },
  {
    method: "POST",
    pattern: "console/api/b/:brain/doc/:id/forget",
    handler: async (r) => apiJson(await forgetDocument(r.actor, await routeBrain(r), r.params.id)),
  },
  {
    method: "POST",
    pattern: "console/api/b/:brain/doc/:id/restore",
    handler: async (r) => apiJson(await restoreDocument(r.actor, await routeBrain(r), r.params.id)),
  },
];
