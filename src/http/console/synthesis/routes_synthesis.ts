/** @module The Synthesis routes: the page and its JSON (docs/console.md#synthesis). */
import { apiJson } from "../console_http.ts";
import type { ConsoleRequest, ConsoleRoute } from "../console_request.ts";
import { consolePage, routeBrain } from "../routes_memory.ts";
import { synthesisBody } from "./pages_synthesis.ts";
import { synthesis } from "./synthesis_actions.ts";

function topicOf(r: ConsoleRequest): string {
  return r.url.searchParams.get("topic")?.trim() ?? "";
}

/** The Synthesis routes. */
export const SYNTHESIS_ROUTES: readonly ConsoleRoute[] = [
  {
    method: "GET",
    pattern: "console/b/:brain/synthesis",
    handler: async (r) => {
      const brain = await routeBrain(r);
      const topic = topicOf(r);
      return consolePage(r, {
        title: topic ? `Synthesis: ${topic}` : "Synthesis",
        brain,
        current: "synthesis",
        body: synthesisBody(brain, await synthesis(r.actor, brain, { topic })),
      });
    },
  },
  {
    method: "GET",
    pattern: "console/api/b/:brain/synthesis",
    handler: async (r) =>
      apiJson(await synthesis(r.actor, await routeBrain(r), { topic: topicOf(r) })),
  },
];
