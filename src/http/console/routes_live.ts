/**
 * @module The live routes: the Ask and Ingest pages, Ask's streamed answer, uploads, a URL ingest,
 * and `/console/events` (server-sent events: job progress, new versions, upstream status).
 */
import { z } from "zod";
import { EngramError } from "../../core/errors.ts";
import { parseInput } from "../../core/validate.ts";
import { apiJson, boundedBytes, jsonBody } from "./console_http.ts";
import type { ConsoleRoute } from "./console_request.ts";
import {
  askStream,
  jobEvents,
  type OpenStreams,
  UPLOAD_BYTES,
  uploadFile,
} from "./live_actions.ts";
import { brainOf } from "./memory_actions.ts";
import { askBody, ingestBody } from "./pages_live.ts";
import { consolePage, routeBrain } from "./routes_memory.ts";
import { watchEvents } from "./watch_events.ts";

const AskBody = z.object({
  question: z.string().min(1),
  strict: z.boolean().default(false),
}).strict();

const UrlBody = z.object({ url: z.string().min(1) }).strict();

/** The live routes; `streams` holds the open event streams (ended on shutdown). */
export function liveRoutes(streams: OpenStreams): ConsoleRoute[] {
  return [
    {
      method: "GET",
      pattern: "console/b/:brain/ask",
      handler: async (r) => {
        const brain = await routeBrain(r);
        return consolePage(r, { title: "Ask", brain, current: "ask", body: askBody(brain) });
      },
    },
    {
      method: "GET",
      pattern: "console/b/:brain/ingest",
      handler: async (r) => {
        const brain = await routeBrain(r);
        if (!r.actor.can("write")) {
          throw new EngramError(
            "forbidden",
            `ingesting needs tier write; this token is tier ${r.actor.grant.tier}`,
          );
        }
        return consolePage(r, {
          title: "Ingest",
          brain,
          current: "ingest",
          body: ingestBody(r.actor, brain, {
            uploads: r.parts.upload !== undefined && r.actor.allows("memory_ingest_file"),
          }),
        });
      },
    },
    {
      method: "POST",
      pattern: "console/api/b/:brain/ask",
      handler: async (r) => {
        const brain = await routeBrain(r);
        const body = parseInput(
          AskBody,
          await jsonBody(r.req, r.settings.max_body_bytes),
          "console ask",
        );
        return askStream(r.actor, brain, {
          question: body.question,
          strict: body.strict,
          logger: r.actor.deps.logger,
        });
      },
    },
    {
      // One file a request, its bytes the body: up to 25 MiB, past server.max_body_bytes.
      method: "POST",
      pattern: "console/api/b/:brain/upload",
      handler: async (r) => {
        const brain = await routeBrain(r);
        const name = r.url.searchParams.get("name")?.trim() ?? "";
        if (!name || name.length > 1024 || name.includes("\0")) {
          throw new EngramError(
            "invalid_argument",
            "name the file: ?name=notes.md (1..1024 characters)",
          );
        }
        if (!r.actor.can("write")) {
          // Refused before reading 25 MiB it would not store.
          await uploadFile(r.actor, brain, { parts: r.parts, name, bytes: new Uint8Array() });
        }
        const bytes = await boundedBytes(r.req, UPLOAD_BYTES);
        return apiJson(await uploadFile(r.actor, brain, { parts: r.parts, name, bytes }));
      },
    },
    {
      method: "POST",
      pattern: "console/api/b/:brain/ingest-url",
      handler: async (r) => {
        const brain = await routeBrain(r);
        const body = parseInput(
          UrlBody,
          await jsonBody(r.req, r.settings.max_body_bytes),
          "console ingest-url",
        );
        return apiJson(await r.actor.tool("memory_ingest_url", { url: body.url, brain: brain.id }));
      },
    },
    {
      // `?job=ID…`: those jobs to their end; else `?brain=SLUG` and/or `?upstreams=1`, live.
      method: "GET",
      pattern: "console/events",
      handler: async (r) => {
        const ids = r.url.searchParams.getAll("job");
        if (ids.length) {
          return jobEvents(r.actor, { ids, keepAliveMs: r.settings.sse_keepalive_ms, streams });
        }
        const slug = r.url.searchParams.get("brain");
        return await watchEvents(r.actor, {
          brain: slug ? await brainOf(r.actor, slug) : null,
          upstreams: r.url.searchParams.get("upstreams") === "1",
          parts: r.parts,
          keepAliveMs: r.settings.sse_keepalive_ms,
          streams,
          alive: r.alive,
        });
      },
    },
  ];
}
