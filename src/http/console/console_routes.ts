/** @module The console's routes: each page and API path, its method and handler. */
import type { ConsoleRoute } from "./console_request.ts";
import type { OpenStreams } from "./live_actions.ts";
import { MEMORY_ROUTES } from "./routes_memory.ts";
import { liveRoutes } from "./routes_live.ts";
import { ADMIN_ROUTES } from "./routes_admin.ts";
import { SYNTHESIS_ROUTES } from "./synthesis/routes_synthesis.ts";

/** Every route of a signed-in console; `streams` collects the open event streams. */
export function consoleRoutes(streams: OpenStreams): readonly ConsoleRoute[] {
  return [...MEMORY_ROUTES, ...SYNTHESIS_ROUTES, ...liveRoutes(streams), ...ADMIN_ROUTES];
}
