/**
 * @module The one MCP server factory every transport uses: tools, prompts, resources,
 * subscriptions, logging and completion, with tiers, dispatch and audit.
 */
import {
  type CallToolRequest,
  CallToolRequestSchema,
  ErrorCode,
  type ListToolsRequest,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type Tool,
} from "./session/mcp_protocol.ts";
import { SessionServer } from "./session/session_server.ts";
import type { Logger } from "../../core/logger.ts";
import type { MemoryService } from "../../core/memory_service.ts";
import type { IngestContext } from "../../ingest/context.ts";
import type { JobRunner } from "../../core/job_runner.ts";
import type { ConsolidateSettings } from "../../core/sessions/consolidate.ts";
import type { ProviderSet } from "../../providers/stack.ts";
import type { MemoryModel } from "../../core/ports/language_model.ts";
import type { AuditSink } from "../../core/ports/audit_log.ts";
import type { JobQueue } from "../../core/ports/job_queue.ts";
import type { LockStore } from "../../core/ports/lock_store.ts";
import type { SessionStore } from "../../core/ports/session_store.ts";
import { type CallerContext, tierAllows } from "../../core/types.ts";
import { paginate } from "./pagination.ts";
import { registerLogging } from "./client_logging.ts";
import { trackClientRoots } from "./client_roots.ts";
import { registerCompletion } from "./completion.ts";
import { registerPrompts } from "./prompts/prompts.ts";
import { RecentQueries } from "./recent_queries.ts";
import { registerResources } from "./resources/resources.ts";
import { registerSubscriptions } from "./resources/subscriptions.ts";
import { handleStrictly, type RequestExtra } from "./strict_handler.ts";
import { dispatchTool } from "./tool_dispatch.ts";
import { ToolListing } from "./tool_listing.ts";
import type { ToolDef } from "./tool.ts";
import { MEMORY_TOOLS } from "./tools/index.ts";
import {
  dispatchUpstreamTool,
  refusedToolResult,
  type UpstreamProgress,
  type UpstreamTools,
} from "./upstream_tools.ts";
import { notSelected, type ToolSelection } from "./tool_selection.ts";
import { upstreamPrompts, upstreamResources } from "./upstream_offers.ts";
import { EngramError } from "../../core/errors.ts";

/** Server identity reported on initialize. */
export const SERVER_NAME = "engram";

/** What the server factory needs. */
export interface ServerDeps {
  service: MemoryService;
  sessions: SessionStore;
  jobQueue: JobQueue;
  locks: LockStore;
  audit: AuditSink;
  caller: CallerContext;
  logger: Logger;
  version: string;
  /** Ingestion settings; without them the ingest tools answer not_implemented. */
  ingest?: IngestContext;
  /** The process's language-model providers; the session adds the client's sampling when offered. */
  providers: ProviderSet;
  /** Background jobs of this process (queued ingestion, fact extraction). */
  jobs?: JobRunner;
  consolidate: ConsolidateSettings;
  /**
   * Follow the client's `roots` for memory_ingest_file. Stdio only: over HTTP the client runs on
   * another machine, so the paths its roots name are not this machine's files.
   */
  clientRoots?: { home?: string };
  /**
   * Approved upstream tools and prompts offered through this server, as `mcp_<server>_<name>`,
   * and resource templates under `upstream://<server>/`; absent when no upstream servers are
   * configured.
   */
  upstream?: UpstreamTools;
  /** The tools this session lists and may call (`--tools`, a token's list, `server.tools`). */
  toolSelection?: ToolSelection;
  /**
   * The memory tools' tools/list entries, shared by every session of a process so their JSON
   * Schemas are generated once; without it the session builds its own on its first tools/list.
   */
  toolListing?: ToolListing;
  /**
   * Called when the session's connection closes, after the factory's own clean-up. The factory
   * owns `server.onclose`; transports hear about the close through this instead.
   */
  onClose?: () => void;
}

const INSTRUCTIONS =
  "engram is a long-term memory. Before answering from memory, call memory_search; store durable facts, decisions and notes with memory_remember (one topic per document, a clear first heading). Read a whole document with memory_get, change it with memory_update, and drop it with memory_forget. Paths: /memory/global/ for general knowledge, /memory/project/ for this project, /memory/agent/ for your own notes. Prompts (summarize_local_context, research_topic, summarize_document, find_connections, daily_briefing) turn brain content into ready-made requests; resources expose engram://context/help, engram://context/status, brains and documents (subscribe to a document to hear when it changes).";

const TOOLS_BY_NAME: ReadonlyMap<string, ToolDef> = new Map(MEMORY_TOOLS.map((t) => [t.name, t]));

/** Tools whose `query` argument completion offers again later in the session. */
const QUERY_TOOLS = new Set(["memory_search", "memory_recall", "memory_ask"]);

/** Builds an MCP server for one session of one caller. */
export function createSessionServer(deps: ServerDeps): SessionServer {
  const server = new SessionServer(
    { name: SERVER_NAME, title: "engram memory", version: deps.version },
    {
      capabilities: {
        // Exposed upstream tools come and go as the operator approves, revokes or an upstream
        // changes a definition; sessions are told.
        tools: { listChanged: deps.upstream !== undefined },
        // So do exposed upstream prompts and resource templates.
        prompts: { listChanged: deps.upstream !== undefined },
        resources: { subscribe: true, listChanged: deps.upstream !== undefined },
        logging: {},
        completions: {},
      },
      instructions: INSTRUCTIONS,
    },
  );
  const log = registerLogging(server, deps.logger, {
    session: {
      server: SERVER_NAME,
      version: deps.version,
      transport: deps.caller.transport,
      tier: deps.caller.tier,
    },
  });
  const session = {
    service: deps.service,
    audit: deps.audit,
    caller: deps.caller,
    logger: log.logger,
    serverLogger: deps.logger,
  };
  const recent = new RecentQueries();
  registerPrompts(server, session, {
    more: deps.upstream && upstreamPrompts(deps.upstream, session),
  });
  registerResources(server, { ...session, version: deps.version }, {
    more: deps.upstream && upstreamResources(deps.upstream, session),
  });
  const stopSubscriptions = registerSubscriptions(server, session);
  const stopExposure = deps.upstream?.onChange((changed) => {
    const sent = (list: string) => (err: unknown) =>
      deps.logger.debug(`${list}/list_changed not sent`, { error: String(err) });
    if (changed.tools) server.sendToolListChanged().catch(sent("tools"));
    if (changed.prompts) server.sendPromptListChanged().catch(sent("prompts"));
    if (changed.resources) server.sendResourceListChanged().catch(sent("resources"));
  });
  server.onclose = () => {
    stopSubscriptions();
    stopExposure?.();
    deps.onClose?.();
  };
  registerCompletion(server, { ...session, recent });
  const ingest = sessionIngest(server, deps);
  const selected = (name: string) => deps.toolSelection?.allows(name) ?? true;
  const toolListing = deps.toolListing ?? new ToolListing(MEMORY_TOOLS);
  let listing: Tool[] | undefined;
  const memoryListing = () =>
    listing ??= toolListing.entries().filter((t) =>
      tierAllows(deps.caller.tier, t.tier) && selected(t.entry.name)
    ).map((t) => t.entry);
  // Built on first use: only after initialize is it known whether the client offers sampling.
  let model: MemoryModel | undefined;
  const sessionModel = () =>
    model ??= server.getClientCapabilities()?.sampling
      ? deps.providers.forSession((params, o) =>
        server.createMessage(params, { signal: o.signal }) as Promise<
          { model?: string; content: unknown }
        >
      )
      : deps.providers.background();

  handleStrictly(server, ListToolsRequestSchema, (request: ListToolsRequest) => {
    const all = deps.upstream
      ? [
        ...memoryListing(),
        ...deps.upstream.tools(deps.caller.tier).filter((t) => selected(t.name)),
      ]
      : memoryListing();
    const { page, nextCursor } = paginate(all, request.params?.cursor);
    return { tools: page, ...(nextCursor ? { nextCursor } : {}) };
  });

  // Registered through handleStrictly: with the SDK's own schema, badly formed params were -32603.
  handleStrictly(
    server,
    CallToolRequestSchema,
    (request: CallToolRequest, extra: RequestExtra) => {
      const { name, arguments: args } = request.params;
      const ctx = { ...session, logger: log.forRequest(extra.sendNotification) };
      if (deps.toolSelection && !selected(name)) {
        return refusedToolResult(notSelected(name, deps.toolSelection), { name, args, ctx });
      }
      const tool = TOOLS_BY_NAME.get(name);
      const offered = tool ? undefined : deps.upstream?.find(name);
      if (offered && deps.upstream) {
        return dispatchUpstreamTool(deps.upstream, offered, {
          args,
          ctx,
          signal: extra.signal,
          progress: passThroughProgress(request, extra),
          downstream: {
            ...(server.getClientCapabilities()?.elicitation
              ? {
                elicit: (params, signal) =>
                  server.elicitInput(params as Parameters<SessionServer["elicitInput"]>[0], {
                    signal,
                  }),
              }
              : {}),
            ...(server.getClientCapabilities()?.sampling
              ? { sample: (params, signal) => server.createMessage(params, { signal }) }
              : {}),
          },
        });
      }
      const withdrawn = tool || offered ? undefined : deps.upstream?.withdrawn(name);
      if (withdrawn !== undefined) {
        return refusedToolResult(new EngramError("forbidden", withdrawn), { name, args, ctx });
      }
      if (!tool) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `unknown tool "${name}"; list tools with tools/list`,
        );
      }
      const query = args?.query;
      if (QUERY_TOOLS.has(tool.name) && typeof query === "string") recent.add(query);
      return dispatchTool(tool, args, {
        ...ctx,
        sessions: deps.sessions,
        jobQueue: deps.jobQueue,
        locks: deps.locks,
        signal: extra.signal,
        ingest,
        model: sessionModel(),
        jobs: deps.jobs,
        consolidate: deps.consolidate,
        progress: progressSender(request, extra),
      });
    },
  );
  return server;
}

/** The ingestion settings of one session: the configured ones plus, on stdio, the client's roots. */
function sessionIngest(server: SessionServer, deps: ServerDeps): IngestContext | undefined {
  if (!deps.ingest || !deps.clientRoots) return deps.ingest;
  const roots = trackClientRoots(server, {
    logger: deps.logger,
    home: deps.clientRoots.home,
  });
  return { ...deps.ingest, clientRoots: roots.current };
}

/**
 * With `_meta.progressToken`, a sender of `notifications/progress` numbered 0, 1, 2, … carrying
 * each message (docs/tools.md#progress); without a token, none.
 */
function progressSender(
  request: CallToolRequest,
  extra: { sendNotification: (n: ServerNotification) => Promise<void> },
): ((message: string) => Promise<void>) | undefined {
  const token = request.params._meta?.progressToken;
  if (token === undefined) return undefined;
  let progress = 0;
  return (message) =>
    extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: token, progress: progress++, message },
    });
}

/**
 * With `_meta.progressToken`, a sender that passes an upstream's progress notifications on to the
 * client under the client's own token; without a token, none.
 */
function passThroughProgress(
  request: CallToolRequest,
  extra: { sendNotification: (n: ServerNotification) => Promise<void> },
): ((p: UpstreamProgress) => Promise<void>) | undefined {
  const token = request.params._meta?.progressToken;
  if (token === undefined) return undefined;
  return (p) =>
    extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: token, ...p },
    });
}
