/** @module Brain resolution, creation, renaming and deletion, with caller access rules. */
import { EngramError } from "./errors.ts";
import { newId } from "./ids.ts";
import { brainSlug } from "./markdown/naming.ts";
import type { CreateBrainArgs, RenameBrainArgs } from "./schemas.ts";
import type { BrainDeletion, BrainStore } from "./ports/brain_store.ts";
import type { DocumentStore } from "./ports/document_store.ts";
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
  store: BrainStore,
  caller: CallerContext,
): Promise<Brain[]> {
  return (await store.listBrains()).filter((b) => mayAccess(caller, b));
}

/**
 * The brain a call runs against: the named one, else the configured default, else the first the
 * caller may access. A brain the caller may not touch is reported exactly like a missing one.
 */
export async function resolveBrain(
  store: BrainStore,
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
export async function createBrain(store: BrainStore, args: CreateBrainArgs): Promise<Brain> {
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
export async function ensureDefaultBrain(store: BrainStore): Promise<void> {
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

/** What deleting a brain is about to remove, shown before the operator confirms. */
export interface BrainDeletionPlan {
  brain: Brain;
  /** Live documents. */
  documents: number;
  /** Forgotten documents, whose versions go too. */
  forgotten: number;
}

/** What a brain deletion did. */
export type BrainDeletionResult = BrainDeletion & { brain: Brain };

/**
 * Deletes a brain and everything in it, permanently, once `options.confirm` (when given) agrees;
 * null when it declines. The configured default brain is refused: every later command would fail
 * to find it.
 */
export async function deleteBrain(
  stores: { brains: BrainStore; documents: Pick<DocumentStore, "stats"> },
  caller: CallerContext,
  options: {
    brain: string;
    defaultBrain?: string;
    confirm?: (plan: BrainDeletionPlan) => Promise<boolean>;
    at: string;
  },
): Promise<BrainDeletionResult | null> {
  const store = stores.brains;
  const brain = await resolveBrain(store, caller, { brain: options.brain });
  if (isConfiguredDefault(brain, options.defaultBrain)) {
    throw new EngramError(
      "conflict",
      `brain "${brain.slug}" is the configured default brain (default_brain "${options.defaultBrain}" in the config file, or ENGRAM_DEFAULT_BRAIN); point default_brain at another brain first`,
    );
  }
  const stats = await stores.documents.stats(brain.id);
  const plan = { brain, documents: stats.documents, forgotten: stats.deleted_documents };
  if (options.confirm && !(await options.confirm(plan))) return null;
  const done = await store.deleteBrain(brain.id, { at: options.at });
  return { ...done, brain };
}

/**
 * Changes a brain's name and/or slug. Tokens keep working: they hold brain ids. Changing the slug
 * the configured default_brain names is refused, since every later command would fail to find it.
 */
export async function renameBrain(
  store: BrainStore,
  caller: CallerContext,
  args: RenameBrainArgs & { defaultBrain?: string },
): Promise<Brain> {
  const brain = await resolveBrain(store, caller, { brain: args.brain });
  if (args.slug !== undefined && args.slug !== brain.slug && args.defaultBrain === brain.slug) {
    throw new EngramError(
      "conflict",
      `brain "${brain.slug}" is the configured default brain (default_brain "${brain.slug}" in the config file, or ENGRAM_DEFAULT_BRAIN); set default_brain to its id ${brain.id} first, or rename without --slug`,
    );
  }
  return await store.renameBrain(brain.id, { name: args.name, slug: args.slug });
}

function isConfiguredDefault(brain: Brain, defaultBrain: string | undefined): boolean {
  return defaultBrain !== undefined && (defaultBrain === brain.slug || defaultBrain === brain.id);
}
