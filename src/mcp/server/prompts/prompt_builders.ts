/** @module The text of each prompt, built from brain content (see prompt_catalogue.ts for the arguments). */
import { EngramError } from "../../../core/errors.ts";
import type { MemoryService } from "../../../core/memory_service.ts";
import type { Brain, CallerContext, DocumentWithContent } from "../../../core/types.ts";
import { documentByRef } from "../resources/document_lookup.ts";
import { PromptText } from "./prompt_text.ts";

/** What a prompt builder needs. */
export interface PromptContext {
  service: MemoryService;
  caller: CallerContext;
}

/** A built prompt: the message text and the brain it drew on. */
export interface BuiltPrompt {
  description: string;
  text: string;
  brainId: string;
}

/** Documents a context summary includes at most. */
const CONTEXT_DOCUMENTS = 8;
/** Search hits a research prompt includes at most. */
const RESEARCH_HITS = 15;
/** Timeline entries a briefing reads at most. */
const BRIEFING_ENTRIES = 500;
/** Changed documents a briefing shows an excerpt of at most. */
const BRIEFING_EXCERPTS = 30;

/** summarize_local_context: the documents most relevant to `query`, else the most recently changed. */
export async function summarizeLocalContext(
  ctx: PromptContext,
  args: { brain?: string; query?: string },
): Promise<BuiltPrompt> {
  const brain = await ctx.service.brain(ctx.caller, args.brain);
  const docs = args.query
    ? await searchedDocuments(ctx, brain, args.query)
    : await recentDocuments(ctx, brain);
  const about = args.query ? `about "${args.query}"` : "from its most recently changed documents";
  const text = new PromptText().add(
    `Summarize what my local memory (engram brain "${brain.slug}") knows ${about}. Group related points, name the document path behind each point, and point out anything that looks outdated or contradictory.`,
  );
  if (docs.length === 0) {
    text.add(
      args.query
        ? `No document in the brain matches "${args.query}". Say so, and suggest what I could store.`
        : "The brain holds no documents yet. Say so, and suggest what I could store.",
    );
  }
  const max = Math.floor(text.remaining / Math.max(docs.length, 1));
  for (const doc of docs) text.document(doc, { max });
  return {
    description: `Local context from brain ${brain.slug} ${about}`,
    text: text.toString(),
    brainId: brain.id,
  };
}

/** research_topic: the best search hits for a topic, as excerpts with their paths. */
export async function researchTopic(
  ctx: PromptContext,
  args: { topic: string; brain?: string },
): Promise<BuiltPrompt> {
  const brain = await ctx.service.brain(ctx.caller, args.brain);
  const { hits } = await ctx.service.search(ctx.caller, {
    query: args.topic,
    brain: brain.id,
    top_k: RESEARCH_HITS,
    scope: "all",
    sort: "relevance",
  });
  const text = new PromptText().add(
    `Research "${args.topic}" using my notes (engram brain "${brain.slug}") below. Report what they establish, citing the path of each note you rely on; where they disagree; and what is missing. Then suggest follow-up memory_search queries and what would be worth remembering with memory_remember.`,
  );
  if (hits.length === 0) text.add(`No note matches "${args.topic}" yet.`);
  const max = Math.floor(text.remaining / Math.max(hits.length, 1));
  hits.forEach((hit, i) =>
    text.document(
      { id: hit.document_id, path: hit.path, title: hit.title, content: hit.content },
      { max, label: `Note ${i + 1}`, details: sectionOf(hit.heading_path) },
    )
  );
  return {
    description: `Research "${args.topic}" from brain ${brain.slug}`,
    text: text.toString(),
    brainId: brain.id,
  };
}

/** summarize_document: one document with its details and backlinks. */
export async function summarizeDocument(
  ctx: PromptContext,
  args: { id?: string; path?: string; brain?: string },
): Promise<BuiltPrompt> {
  const brain = await ctx.service.brain(ctx.caller, args.brain);
  const doc = args.path !== undefined
    ? await ctx.service.get(ctx.caller, { brain: brain.id, path: args.path })
    : await documentByRef(ctx, brain, args.id!);
  const { items: backlinks } = await ctx.service.backlinks(ctx.caller, {
    brain: brain.id,
    id: doc.id,
  });
  const text = new PromptText().add(
    `Summarize this document from my memory (engram brain "${brain.slug}"): its purpose, key points, decisions and open questions, in a few short paragraphs or bullets.`,
  );
  text.document(doc, { details: detailsOf(doc) });
  if (backlinks.length) {
    text.add(
      `Documents linking to it:\n${backlinks.map((b) => `- ${b.title} (${b.path})`).join("\n")}`,
    );
  }
  return { description: `Summarize ${doc.path}`, text: text.toString(), brainId: brain.id };
}

/** find_connections: two documents with their links, backlinks and shared tags. */
export async function findConnections(
  ctx: PromptContext,
  args: { a: string; b: string; brain?: string },
): Promise<BuiltPrompt> {
  const brain = await ctx.service.brain(ctx.caller, args.brain);
  const a = await documentByRef(ctx, brain, args.a);
  const b = await documentByRef(ctx, brain, args.b);
  if (a.id === b.id) {
    throw new EngramError("invalid_argument", `a and b both name ${a.path}; give two documents`);
  }
  const [linksA, linksB] = await Promise.all(
    [a, b].map(async (d) =>
      (await ctx.service.backlinks(ctx.caller, { brain: brain.id, id: d.id })).items
    ),
  );
  const tagsA = tagsOf(a);
  const tagsB = tagsOf(b);
  const shared = tagsA.filter((t) => tagsB.includes(t));
  const both = linksA.filter((l) => linksB.some((m) => m.document_id === l.document_id));
  const facts = [
    `- ${b.path} ${
      linksA.some((l) => l.document_id === b.id) ? "links" : "does not link"
    } to ${a.path}`,
    `- ${a.path} ${
      linksB.some((l) => l.document_id === a.id) ? "links" : "does not link"
    } to ${b.path}`,
    `- shared tags: ${shared.length ? shared.join(", ") : "none"}`,
    `- documents linking to both: ${both.length ? both.map((l) => l.path).join(", ") : "none"}`,
    `- other documents linking to A: ${listPaths(linksA, b.id)}`,
    `- other documents linking to B: ${listPaths(linksB, a.id)}`,
  ];
  const text = new PromptText().add(
    `Find the connections between two documents in my memory (engram brain "${brain.slug}"): shared ideas, people, decisions, dependencies and contradictions. Say how strongly they are related and suggest links or notes that would make the connection explicit.`,
  ).add(`What engram knows about how they relate:\n${facts.join("\n")}`);
  const max = Math.floor(text.remaining / 2);
  text.document(a, { max, label: "A", details: detailsOf(a) });
  text.document(b, { max, label: "B", details: detailsOf(b) });
  return {
    description: `Connections between ${a.path} and ${b.path}`,
    text: text.toString(),
    brainId: brain.id,
  };
}

/** daily_briefing: what changed in the last `days` days, with excerpts of the changed documents. */
export async function dailyBriefing(
  ctx: PromptContext,
  args: { days: number; brain?: string },
): Promise<BuiltPrompt> {
  const brain = await ctx.service.brain(ctx.caller, args.brain);
  const since = new Date(Date.now() - args.days * 86_400_000).toISOString();
  const { items } = await ctx.service.timeline(ctx.caller, {
    brain: brain.id,
    limit: BRIEFING_ENTRIES,
    since,
  });
  // The newest entry of each document says where it stands now.
  const latest = new Map<string, (typeof items)[number]>();
  for (const item of items) if (!latest.has(item.document_id)) latest.set(item.document_id, item);
  const period = args.days === 1 ? "the last day" : `the last ${args.days} days`;
  const text = new PromptText().add(
    `Give me a short briefing on what changed in my memory (engram brain "${brain.slug}") over ${period} (since ${since}): the main themes, new decisions or facts, and anything that needs my attention. Mention document paths.`,
  );
  if (latest.size === 0) text.add(`Nothing changed in ${period}.`);
  else {
    text.add(
      `Documents changed, newest first (${items.length}${
        items.length < BRIEFING_ENTRIES ? "" : "+"
      } changes):\n` +
        [...latest.values()].map((i) => `- ${i.at} ${i.action} ${i.path} (v${i.version})`).join(
          "\n",
        ),
    );
  }
  const live = [...latest.values()].filter((i) => i.action !== "deleted").slice(
    0,
    BRIEFING_EXCERPTS,
  );
  const max = Math.floor(text.remaining / Math.max(live.length, 1));
  for (const item of live) {
    const doc = await ctx.service.readLive(brain, { id: item.document_id });
    if (doc) text.document(doc, { max: Math.min(max, 1500), label: item.action });
  }
  return {
    description: `Briefing on ${period} in brain ${brain.slug}`,
    text: text.toString(),
    brainId: brain.id,
  };
}

async function searchedDocuments(
  ctx: PromptContext,
  brain: Brain,
  query: string,
): Promise<DocumentWithContent[]> {
  const { hits } = await ctx.service.search(ctx.caller, {
    query,
    brain: brain.id,
    top_k: 30,
    scope: "all",
    sort: "relevance",
  });
  return await readAll(ctx, brain, hits.map((h) => h.document_id));
}

async function recentDocuments(ctx: PromptContext, brain: Brain): Promise<DocumentWithContent[]> {
  const { items } = await ctx.service.timeline(ctx.caller, { brain: brain.id, limit: 100 });
  return await readAll(ctx, brain, items.map((i) => i.document_id));
}

/** The first CONTEXT_DOCUMENTS distinct live documents among `ids`, in order. */
async function readAll(ctx: PromptContext, brain: Brain, ids: string[]) {
  const docs: DocumentWithContent[] = [];
  for (const id of new Set(ids)) {
    if (docs.length >= CONTEXT_DOCUMENTS) break;
    const doc = await ctx.service.readLive(brain, { id });
    if (doc) docs.push(doc);
  }
  return docs;
}

function detailsOf(doc: DocumentWithContent): string {
  const tags = tagsOf(doc);
  return `version ${doc.version}, updated ${doc.updated_at}${
    tags.length ? `, tags: ${tags.join(", ")}` : ""
  }`;
}

function tagsOf(doc: DocumentWithContent): string[] {
  const tags = doc.metadata.tags;
  return typeof tags === "string" && tags ? tags.split(",") : [];
}

function sectionOf(headingPath: string[]): string | undefined {
  return headingPath.length ? `section: ${headingPath.join(" › ")}` : undefined;
}

function listPaths(links: { document_id: string; path: string }[], except: string): string {
  const paths = links.filter((l) => l.document_id !== except).map((l) => l.path);
  return paths.length ? paths.join(", ") : "none";
}
