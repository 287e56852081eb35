/**
 * @module What the Synthesis page shows (docs/console.md#synthesis), each part one of engram's
 * tools run as the signed-in token: the open loops (memory_open_loops), the decisions
 * (memory_decisions, about the topic when one is given) and the context pack for the topic
 * (memory_pack). A part the token's tools list leaves out, or that fails, is said so in its place;
 * the other parts still show.
 */
import type { DecisionsResult } from "../../../core/synthesis/decisions.ts";
import type { OpenLoop, OpenLoopsResult } from "../../../core/synthesis/open_loops.ts";
import type { PackResult } from "../../../core/synthesis/pack.ts";
import { concealInternal } from "../../../core/internal_errors.ts";
import type { Brain } from "../../../core/types.ts";
import type { ConsoleActor } from "../console_actor.ts";

/** One part of the page: its result, the tool the token's list leaves out, or its error. */
export type Part<T> =
  | { value: T }
  | { off: string }
  | { error: { code: string; message: string } };

/** Open loops, with whether the topic filtered them. */
export type LoopsPart = OpenLoopsResult & { filtered: boolean };

/** The Synthesis page's data. */
export interface SynthesisView {
  topic: string;
  loops: Part<LoopsPart>;
  decisions: Part<DecisionsResult>;
  /** Only for a topic; null without one. */
  pack: Part<PackResult> | null;
}

/** Open loops read for the page (the topic then filters them). */
const LOOPS_READ = 200;

/**
 * Whether a loop is about `topic`: every word of it appears in the loop's text or its document's
 * path. The console's own filter, as memory_open_loops takes no topic.
 */
export function loopMatches(loop: OpenLoop, topic: string): boolean {
  const hay = `${loop.text} ${loop.path}`.toLowerCase();
  return topic.toLowerCase().split(/\s+/).filter(Boolean).every((w) => hay.includes(w));
}

async function part<T>(actor: ConsoleActor, tool: string, run: () => Promise<T>): Promise<Part<T>> {
  if (!actor.allows(tool)) return { off: tool };
  try {
    return { value: await run() };
  } catch (err) {
    const e = concealInternal(err, { logger: actor.deps.logger, what: `console ${tool}` });
    return { error: { code: e.code, message: e.message } };
  }
}

/** The page's three parts for `topic` ("" for none), run side by side. */
export async function synthesis(
  actor: ConsoleActor,
  brain: Brain,
  o: { topic: string },
): Promise<SynthesisView> {
  const topic = o.topic.trim();
  const [loops, decisions, pack] = await Promise.all([
    part(actor, "memory_open_loops", async () => {
      const r = await actor.tool<OpenLoopsResult>("memory_open_loops", {
        brain: brain.id,
        limit: topic ? LOOPS_READ : 50,
      });
      if (!topic) return { ...r, filtered: false };
      return { ...r, items: r.items.filter((i) => loopMatches(i, topic)), filtered: true };
    }),
    part(actor, "memory_decisions", () =>
      actor.tool<DecisionsResult>("memory_decisions", {
        brain: brain.id,
        ...(topic ? { query: topic } : {}),
      })),
    topic
      ? part(
        actor,
        "memory_pack",
        () => actor.tool<PackResult>("memory_pack", { brain: brain.id, query: topic }),
      )
      : Promise.resolve(null),
  ]);
  return { topic, loops, decisions, pack };
}
