/** @module The prompts engram offers: names, descriptions, arguments and their validation. */
import { z } from "zod";
import { LIMITS } from "../../../core/limits.ts";
import type { Tier } from "../../../core/types.ts";
import type { BuiltPrompt, PromptContext } from "./prompt_builders.ts";

/** The prompt builders, loaded on the first prompts/get (an idle session never needs them). */
const builders = () => import("./prompt_builders.ts");

/** One prompt argument as prompts/list shows it. */
export interface PromptArgumentDef {
  name: string;
  description: string;
  required: boolean;
}

/** One prompt: its listing, how its arguments are checked, and how its message is built. */
export interface PromptDef {
  name: string;
  title: string;
  description: string;
  tier: Tier;
  arguments: PromptArgumentDef[];
  /** Validates the string arguments (empty strings already dropped). */
  input: z.ZodType;
  build(ctx: PromptContext, args: unknown): Promise<BuiltPrompt>;
}

const BRAIN: PromptArgumentDef = {
  name: "brain",
  description: "Brain slug or id; the default brain when omitted",
  required: false,
};
const brain = z.string().max(LIMITS.brainNameChars).optional();
const ref = z.string().max(LIMITS.pathChars);

/** Every prompt, in listing order. All are read-tier: they only read the brain. */
export const PROMPTS: readonly PromptDef[] = [
  {
    name: "summarize_local_context",
    title: "Summarize local context",
    description:
      "A request to summarize what the memory holds: the documents most relevant to a query, or the most recently changed ones when no query is given.",
    tier: "read",
    arguments: [BRAIN, {
      name: "query",
      description: "What the summary is about; without it, the most recent documents",
      required: false,
    }],
    input: z.strictObject({ brain, query: z.string().max(LIMITS.queryChars).optional() }),
    build: async (ctx, args) =>
      (await builders()).summarizeLocalContext(ctx, args as { brain?: string; query?: string }),
  },
  {
    name: "research_topic",
    title: "Research a topic",
    description:
      "A request to research a topic from the notes in memory: the best matching excerpts with their paths, and what to report.",
    tier: "read",
    arguments: [
      { name: "topic", description: "The topic to research", required: true },
      BRAIN,
    ],
    input: z.strictObject({ topic: z.string().max(LIMITS.queryChars), brain }),
    build: async (ctx, args) =>
      (await builders()).researchTopic(ctx, args as { topic: string; brain?: string }),
  },
  {
    name: "summarize_document",
    title: "Summarize a document",
    description:
      "A request to summarize one document, given by id or path, with its details and the documents linking to it.",
    tier: "read",
    arguments: [
      { name: "id", description: "Document id (doc_…), or a path", required: false },
      {
        name: "path",
        description: "Document path, e.g. /memory/global/running.md",
        required: false,
      },
      BRAIN,
    ],
    input: z.strictObject({ id: ref.optional(), path: ref.optional(), brain }).refine(
      (a) => (a.id === undefined) !== (a.path === undefined),
      "give exactly one of id or path",
    ),
    build: async (ctx, args) =>
      (await builders()).summarizeDocument(ctx, args as { id?: string; path?: string }),
  },
  {
    name: "find_connections",
    title: "Find connections",
    description:
      "A request to find how two documents relate: both contents, links between them, their backlinks and shared tags.",
    tier: "read",
    arguments: [
      { name: "a", description: "The first document: id or path", required: true },
      { name: "b", description: "The second document: id or path", required: true },
      BRAIN,
    ],
    input: z.strictObject({ a: ref, b: ref, brain }),
    build: async (ctx, args) =>
      (await builders()).findConnections(ctx, args as { a: string; b: string; brain?: string }),
  },
  {
    name: "daily_briefing",
    title: "Daily briefing",
    description:
      "A request for a briefing on what changed in memory recently: the timeline of the last days with excerpts of the changed documents.",
    tier: "read",
    arguments: [
      {
        name: "days",
        description: "How many days to look back, 1 to 365 (default 1)",
        required: false,
      },
      BRAIN,
    ],
    input: z.strictObject({
      days: z.string().regex(/^\d+$/, "must be a whole number of days").transform(Number)
        .pipe(z.number().min(1, "must be at least 1").max(365, "must be at most 365")).default(1),
      brain,
    }),
    build: async (ctx, args) =>
      (await builders()).dailyBriefing(ctx, args as { days: number; brain?: string }),
  },
];
