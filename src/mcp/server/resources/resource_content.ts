/** @module What each engram:// resource reads as: help, status, brains, listings, documents, search. */
import { EngramError } from "../../../core/errors.ts";
import { documentById } from "./document_lookup.ts";
import type { MemoryService } from "../../../core/memory_service.ts";
import { LIMITS } from "../../../core/limits.ts";
import type { Brain, CallerContext, DocumentWithContent } from "../../../core/types.ts";
import { paginate } from "../pagination.ts";
import { helpMarkdown } from "./resource_help.ts";
import { documentUri, listingUri, pathUri, type ResourceTarget } from "./resource_uris.ts";

/** What reading a resource needs. */
export interface ResourceContext {
  service: MemoryService;
  caller: CallerContext;
  version: string;
}

/** The contents of one resource and, for the audit log, the brain it came from. */
export interface ReadOutcome {
  mimeType: string;
  text: string;
  brainId?: string;
}

/** Reads what `target` names; a missing or inaccessible brain or document throws not_found/no_brain. */
export async function readTarget(
  ctx: ResourceContext,
  target: ResourceTarget,
): Promise<ReadOutcome> {
  switch (target.kind) {
    case "help":
      return { mimeType: "text/markdown", text: helpMarkdown(ctx.caller.tier) };
    case "status":
      return json(await status(ctx));
    case "brains":
      return json({ items: (await ctx.service.listBrains(ctx.caller)).map(brainEntry) });
    case "listing":
      return await listing(ctx, target.brain, target.cursor);
    case "document":
      return markdown(await documentById(ctx, target.id));
    case "path": {
      const doc = await ctx.service.get(ctx.caller, { brain: target.brain, path: target.path });
      return markdown(doc);
    }
    case "search":
      return await search(ctx, target);
  }
}

async function status(ctx: ResourceContext) {
  const brains = await Promise.all(
    (await ctx.service.listBrains(ctx.caller)).map(async (b) => {
      const s = await ctx.service.stats(ctx.caller, { brain: b.id });
      return {
        id: b.id,
        slug: b.slug,
        name: b.name,
        documents: s.documents,
        last_updated_at: s.last_updated_at,
        documents_uri: listingUri(b.slug),
      };
    }),
  );
  return {
    server: "engram",
    version: ctx.version,
    tier: ctx.caller.tier,
    transport: ctx.caller.transport,
    documents: brains.reduce((n, b) => n + b.documents, 0),
    brains,
  };
}

function brainEntry(b: Brain) {
  return { ...b, documents_uri: listingUri(b.slug) };
}

/** One page of a brain's live documents, oldest first so a cursor stays valid as documents are added. */
async function listing(ctx: ResourceContext, brainRef: string, cursor?: string) {
  const brain = await ctx.service.brain(ctx.caller, brainRef);
  const docs = await ctx.service.documentsUnder(brain, "/");
  const { page, nextCursor } = paginate(docs, cursor);
  return json({
    brain: { id: brain.id, slug: brain.slug },
    total: docs.length,
    items: page.map((d) => ({
      id: d.id,
      path: d.path,
      title: d.title,
      version: d.version,
      byte_size: d.byte_size,
      updated_at: d.updated_at,
      uri: documentUri(d.id),
      path_uri: pathUri(brain.slug, d.path),
    })),
    ...(nextCursor
      ? { next_cursor: nextCursor, next_uri: listingUri(brain.slug, nextCursor) }
      : {}),
  }, brain.id);
}

async function search(
  ctx: ResourceContext,
  target: { query?: string; limit?: string; brain?: string },
) {
  if (!target.query) {
    throw new EngramError(
      "invalid_argument",
      "engram://context/search needs a query, e.g. engram://context/search?query=deploy&limit=10",
    );
  }
  if (target.query.length > LIMITS.queryChars) {
    throw new EngramError(
      "invalid_argument",
      `query is longer than ${LIMITS.queryChars} characters`,
    );
  }
  const limit = target.limit === undefined ? 10 : Number(target.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.topK) {
    throw new EngramError(
      "invalid_argument",
      `limit must be a whole number from 1 to ${LIMITS.topK}, not "${target.limit}"`,
    );
  }
  const result = await ctx.service.search(ctx.caller, {
    query: target.query,
    brain: target.brain,
    top_k: limit,
    scope: "all",
    sort: "relevance",
  });
  return json(result, result.brain_id);
}

function json(value: unknown, brainId?: string): ReadOutcome {
  return { mimeType: "application/json", text: JSON.stringify(value, null, 2), brainId };
}

function markdown(doc: DocumentWithContent): ReadOutcome {
  // Ingested text keeps its own text type; everything else engram stores is markdown.
  const mimeType = doc.content_type.startsWith("text/") ? doc.content_type : "text/markdown";
  return { mimeType, text: doc.content, brainId: doc.brain_id };
}
