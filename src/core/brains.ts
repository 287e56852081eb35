/** @module Brain resolution and creation, with caller access rules. */
import { EngramError } from "./errors.ts";
import { newId } from "./ids.ts";
import { brainSlug } from "./markdown/naming.ts";
import type { CreateBrainArgs } from "./schemas.ts";
import type { MemoryStore } from "./store.ts";
import type { Brain, CallerContext } from "./types.ts";

/** The brain every fresh database gets. */
export const DEFAULT_BRAIN_SLUG = "default";

/** Whether the caller's brain list admits this brain. */
export function mayAccess(caller: CallerContext, brain: Brain): boolean {
  return caller.brains === "*" || caller.brains.includes(brain.slug) ||
    caller.brains.includes(brain.id);
}

/** Brains the caller may access. */
export async function accessibleBrains(
  store: MemoryStore,
  caller: CallerContext,
): Promise<Brain[]> {
  return (await store.listBrains()).filter((b) => mayAccess(caller, b));
}

/**
 * The brain a call runs against: the named one, else the configured default, else the first the
 * caller may access. A brain the caller may not touch is reported exactly like a missing one.
 */
export async function resolveBrain(
  store: MemoryStore,
  caller: CallerContext,
  options: { brain?: string; defaultBrain?: string },
): Promise<Brain> {
  const wanted = options.brain ?? options.defaultBrain;
  if (wanted !== undefined) {
    const found = await store.findBrain(wanted);
    if (found && mayAccess(caller, found)) return found;
    throw new EngramError(
      "no_brain",
      `brain "${wanted}" not found; list brains with: engram brains list`,
    );
  }
  const first = (await accessibleBrains(store, caller))[0];
  if (first) return first;
  throw new EngramError(
    "no_brain",
    "no brain is available to this caller; create one with: engram brains create NAME",
  );
}

/** Creates a brain, generating the slug from the name when none is given. */
export async function createBrain(store: MemoryStore, args: CreateBrainArgs): Promise<Brain> {
  const slug = args.slug ?? brainSlug(args.name);
  if (!slug) {
    throw new EngramError(
      "invalid_argument",
      `cannot derive a slug from name "${args.name}"; pass a slug matching ^[a-z0-9][a-z0-9-]*$`,
    );
  }
  return await store.createBrain({
    id: newId("brn"),
    slug,
    name: args.name,
    visibility: args.visibility,
  });
}

/** Creates the `default` brain when the database has no brain at all (first run). */
export async function ensureDefaultBrain(store: MemoryStore): Promise<void> {
  if ((await store.listBrains()).length > 0) return;
  try {
    await store.createBrain({
      id: newId("brn"),
      slug: DEFAULT_BRAIN_SLUG,
      name: "Default",
      visibility: "private",
    });
  } catch (err) {
    // Another process created it first.
    if (!(err instanceof EngramError && err.code === "conflict")) throw err;
  }
}
