/** @module Finding a document for a resource or prompt: by id in any accessible brain, or "id or path". */
import { EngramError } from "../../../core/errors.ts";
import type { MemoryService } from "../../../core/memory_service.ts";
import type { Brain, CallerContext, DocumentWithContent } from "../../../core/types.ts";

/** A live document by id in any brain the caller may access (ids are unique across brains). */
export async function documentById(
  ctx: { service: MemoryService; caller: CallerContext },
  id: string,
): Promise<DocumentWithContent> {
  const doc = await ctx.service.findById(ctx.caller, id);
  if (doc) return doc;
  throw new EngramError("not_found", `document ${id} not found`);
}

/**
 * A live document in `brain` named by an id or a path: a value starting with `/` is a path;
 * anything else is tried as an id, then as a path.
 */
export async function documentByRef(
  ctx: { service: MemoryService; caller: CallerContext },
  brain: Brain,
  ref: string,
): Promise<DocumentWithContent> {
  if (ref.startsWith("/")) return await ctx.service.get(ctx.caller, { brain: brain.id, path: ref });
  try {
    return await ctx.service.get(ctx.caller, { brain: brain.id, id: ref });
  } catch (err) {
    if (!(err instanceof EngramError && err.code === "not_found")) throw err;
  }
  try {
    return await ctx.service.get(ctx.caller, { brain: brain.id, path: ref });
  } catch (err) {
    if (!(err instanceof EngramError && err.code === "not_found")) throw err;
    throw new EngramError(
      "not_found",
      `no document with id or path "${ref}" in brain "${brain.slug}"; find one with memory_search or the engram://brains/${brain.slug}/documents resource`,
    );
  }
}
