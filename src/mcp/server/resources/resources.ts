/** @module resources/list, resources/templates/list and resources/read for engram:// resources. */
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from "../session/mcp_protocol.ts";
import type { SessionServer } from "../session/session_server.ts";
import { auditCall, type AuditContext } from "../audit.ts";
import { auditCodeOf, resourceNotFound, toMcpError } from "../mcp_errors.ts";
import { paginate } from "../pagination.ts";
import { readTarget } from "./resource_content.ts";
import { listingUri, parseResourceUri, RESOURCE_TEMPLATES } from "./resource_uris.ts";
import { handleStrictly } from "../strict_handler.ts";

/** What the resource handlers need. */
export interface ResourceDeps extends AuditContext {
  version: string;
}

const FIXED: Resource[] = [
  {
    uri: RESOURCE_TEMPLATES.help,
    name: "help",
    title: "engram help",
    description: "What engram is, and the tools, prompts and resources of this session",
    mimeType: "text/markdown",
  },
  {
    uri: RESOURCE_TEMPLATES.status,
    name: "status",
    title: "engram status",
    description: "Version, tier, brains and their document counts",
    mimeType: "application/json",
  },
  {
    uri: RESOURCE_TEMPLATES.brains,
    name: "brains",
    title: "Brains",
    description: "The brains this session may access",
    mimeType: "application/json",
  },
];

const TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: RESOURCE_TEMPLATES.search,
    name: "search",
    title: "Search memory",
    description:
      "Full-text search results (JSON) for query, at most limit hits (1..100, default 10)",
    mimeType: "application/json",
  },
  {
    uriTemplate: RESOURCE_TEMPLATES.path,
    name: "document-by-path",
    title: "Document by path",
    description:
      "A document's markdown by brain and path, e.g. engram://brains/default/documents/memory/global/running.md",
    mimeType: "text/markdown",
  },
  {
    uriTemplate: RESOURCE_TEMPLATES.document,
    name: "document",
    title: "Document by id",
    description: "A document's markdown by id (doc_…)",
    mimeType: "text/markdown",
  },
];

/** Resource templates offered besides engram's own (approved upstream ones: upstream_offers.ts). */
export interface MoreResources {
  templates(): ResourceTemplate[];
  /** Reads `uri` when it falls under one of these (audited there); undefined otherwise. */
  read(uri: string, signal: AbortSignal): Promise<ReadResourceResult> | undefined;
}

/** Registers the resource handlers (subscriptions are in subscriptions.ts), with `more` templates. */
export function registerResources(
  server: SessionServer,
  deps: ResourceDeps,
  o: { more?: MoreResources } = {},
): void {
  handleStrictly(server, ListResourcesRequestSchema, async (request) => {
    const brains = await deps.service.listBrains(deps.caller).catch((err) => {
      throw toMcpError(err, { serverLogger: deps.serverLogger, what: "resources/list" });
    });
    const all: Resource[] = [
      ...FIXED,
      ...brains.map((b) => ({
        uri: listingUri(b.slug),
        name: `${b.slug}-documents`,
        title: `Documents in ${b.name}`,
        description: `The documents of brain ${b.slug} (JSON, paged with ?cursor=)`,
        mimeType: "application/json",
      })),
    ];
    const { page, nextCursor } = paginate(all, request.params?.cursor);
    return { resources: page, ...(nextCursor ? { nextCursor } : {}) };
  });

  handleStrictly(server, ListResourceTemplatesRequestSchema, (request) => {
    const all = o.more ? [...TEMPLATES, ...o.more.templates()] : TEMPLATES;
    const { page, nextCursor } = paginate(all, request.params?.cursor);
    return { resourceTemplates: page, ...(nextCursor ? { nextCursor } : {}) };
  });

  handleStrictly(server, ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params;
    const other = o.more?.read(uri, extra.signal);
    if (other) return await other;
    const started = performance.now();
    const target = parseResourceUri(uri);
    // The template, not the URI: a URI can carry a search query or a path, which are content.
    const name = target ? RESOURCE_TEMPLATES[target.kind] : "unknown";
    try {
      if (!target) {
        throw resourceNotFound(uri, `no resource ${uri}; list resources with resources/list`);
      }
      const out = await readTarget(deps, target);
      await auditCall(deps, {
        kind: "resource",
        name,
        args: { uri },
        errorCode: null,
        brainId: out.brainId,
        started,
      });
      return { contents: [{ uri, mimeType: out.mimeType, text: out.text }] };
    } catch (err) {
      const code = auditCodeOf(err);
      await auditCall(deps, { kind: "resource", name, args: { uri }, errorCode: code, started });
      throw toMcpError(err, { uri, serverLogger: deps.serverLogger, what: `resource ${name}` });
    }
  });
}
