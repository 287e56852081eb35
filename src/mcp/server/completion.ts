/**
 * @module completion/complete for prompt arguments and resource-template arguments: brain slugs,
 * document paths and ids, recent queries and document titles, limits and day counts.
 */
import { CompleteRequestSchema } from "./session/mcp_protocol.ts";
import type { SessionServer } from "./session/session_server.ts";
import type { MemoryService } from "../../core/memory_service.ts";
import type { Logger } from "../../core/logger.ts";
import type { CallerContext } from "../../core/types.ts";
import { invalidParams, toMcpError } from "./mcp_errors.ts";
import { PROMPTS } from "./prompts/prompt_catalogue.ts";
import type { RecentQueries } from "./recent_queries.ts";
import { RESOURCE_TEMPLATES } from "./resources/resource_uris.ts";
import { handleStrictly } from "./strict_handler.ts";

/** Most values one completion returns (MCP's limit). */
const MAX_VALUES = 100;

/** What completion needs. */
export interface CompletionDeps {
  service: MemoryService;
  caller: CallerContext;
  /** The process's own log, never forwarded to the client: where internal error detail goes. */
  serverLogger: Logger;
  /** This session's memory_search (and recall/ask) queries. */
  recent: RecentQueries;
}

/** What kind of value an argument takes. */
type ArgKind = "brain" | "path" | "uri-path" | "id" | "text" | "limit" | "days" | "none";

/** Registers completion/complete. */
export function registerCompletion(server: SessionServer, deps: CompletionDeps): void {
  handleStrictly(server, CompleteRequestSchema, async (request) => {
    const { ref, argument, context } = request.params;
    const kind = ref.type === "ref/prompt"
      ? promptArgKind(ref.name, argument.name)
      : templateArgKind(ref.uri, argument.name);
    try {
      const values = await suggest(deps, kind, {
        value: argument.value,
        brain: context?.arguments?.brain,
      });
      return {
        completion: {
          values: values.slice(0, MAX_VALUES),
          total: values.length,
          hasMore: values.length > MAX_VALUES,
        },
      };
    } catch (err) {
      throw toMcpError(err, { serverLogger: deps.serverLogger, what: "completion/complete" });
    }
  });
}

function promptArgKind(prompt: string, arg: string): ArgKind {
  if (!PROMPTS.some((p) => p.name === prompt)) {
    throw invalidParams(`unknown prompt "${prompt}"; list prompts with prompts/list`);
  }
  if (arg === "brain") return "brain";
  if (["id", "path", "a", "b"].includes(arg)) return "path";
  if (arg === "topic" || arg === "query") return "text";
  return arg === "days" ? "days" : "none";
}

function templateArgKind(uri: string, arg: string): ArgKind {
  const known: string[] = Object.values(RESOURCE_TEMPLATES);
  if (!known.includes(uri)) {
    throw invalidParams(
      `unknown resource template "${uri}"; list them with resources/templates/list`,
    );
  }
  if (arg === "brain") return "brain";
  // `{+path}` follows `documents/` in the URI, so its values have no leading slash.
  if (arg === "path") return "uri-path";
  if (arg === "query") return "text";
  if (arg === "id") return "id";
  return arg === "limit" ? "limit" : "none";
}

async function suggest(
  deps: CompletionDeps,
  kind: ArgKind,
  input: { value: string; brain?: string },
): Promise<string[]> {
  const typed = input.value;
  switch (kind) {
    case "brain": {
      const brains = await deps.service.listBrains(deps.caller);
      return brains.map((b) => b.slug).filter((s) => s.startsWith(typed.toLowerCase()));
    }
    case "path":
      return await paths(deps, input.brain, typed.startsWith("/") ? typed : `/${typed}`);
    case "uri-path":
      return (await paths(deps, input.brain, `/${typed}`)).map((p) => p.slice(1));
    case "id":
      // Most recently written first: the document an agent just touched is the likely one.
      return (await documents(deps, input.brain))
        .sort((a, b) => b.updated_at.localeCompare(a.updated_at))
        .map((d) => d.id).filter((id) => id.startsWith(typed));
    case "text":
      return await texts(deps, input.brain, typed);
    case "limit":
      return ["5", "10", "20", "50", "100"].filter((v) => v.startsWith(typed));
    case "days":
      return ["1", "2", "3", "7", "14", "30"].filter((v) => v.startsWith(typed));
    case "none":
      return [];
  }
}

/** Live document paths starting with `prefix`, then ones containing what was typed, sorted. */
async function paths(deps: CompletionDeps, brain: string | undefined, prefix: string) {
  const docs = await documents(deps, brain);
  const all = docs.map((d) => d.path).sort();
  const needle = prefix.slice(1).toLowerCase();
  const starting = all.filter((p) => p.startsWith(prefix));
  const containing = needle
    ? all.filter((p) => !p.startsWith(prefix) && p.toLowerCase().includes(needle))
    : [];
  return [...starting, ...containing];
}

/** Recent queries of this session, then document titles, matching what was typed. */
async function texts(deps: CompletionDeps, brain: string | undefined, typed: string) {
  const needle = typed.toLowerCase();
  const matches = (s: string) => s.toLowerCase().includes(needle);
  const titles = (await documents(deps, brain)).map((d) => d.title).filter(matches).sort();
  const seen = new Set<string>();
  // "alpha" typed earlier and the title "Alpha" are one suggestion: the first wins.
  return [...deps.recent.list().filter(matches), ...titles].filter((t) => {
    const key = t.toLowerCase();
    return !seen.has(key) && seen.add(key);
  });
}

/** The live documents of the named (or default) brain; none when it cannot be resolved. */
async function documents(deps: CompletionDeps, brainRef: string | undefined) {
  try {
    const brain = await deps.service.brain(deps.caller, brainRef || undefined);
    return await deps.service.documentsUnder(brain, "/");
  } catch {
    // A half-typed or unknown brain just has nothing to suggest.
    return [];
  }
}
