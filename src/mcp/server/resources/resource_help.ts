/** @module engram://context/help: what engram is and what this session offers, as markdown. */
import { type Tier, tierAllows, TIERS } from "../../../core/types.ts";
import { PROMPTS } from "../prompts/prompt_catalogue.ts";
import { RESOURCE_TEMPLATES } from "./resource_uris.ts";
import { MEMORY_TOOLS } from "../tools/index.ts";

/** The help text for a session at `tier`. */
export function helpMarkdown(tier: Tier): string {
  const tools = TIERS.map((t) => {
    const names = MEMORY_TOOLS.filter((tool) => tool.tier === t).map((tool) =>
      `- \`${tool.name}\` — ${tool.title}`
    );
    const note = tierAllows(tier, t) ? "" : " (not available in this session)";
    return `### ${t} tier${note}\n\n${names.join("\n")}`;
  });
  const prompts = PROMPTS.map((p) =>
    `- \`${p.name}\`(${
      p.arguments.map((a) => a.required ? a.name : `${a.name}?`).join(", ")
    }) — ${p.description}`
  );
  const r = RESOURCE_TEMPLATES;
  return [
    "# engram",
    "engram is a local-first long-term memory: markdown documents in brains (isolated knowledge bases), versioned, indexed for full-text (and optionally vector) search, kept in one SQLite file on this machine.",
    `This session runs at tier **${tier}**; tools above it are hidden and refused.`,
    "## Working with memory",
    "Search before answering from memory (`memory_search`); store durable facts, decisions and notes with `memory_remember` (one topic per document, a clear first heading). Paths: `/memory/global/` general knowledge, `/memory/project/` this project, `/memory/agent/` your own notes.",
    "## Tools",
    ...tools,
    "## Prompts",
    prompts.join("\n"),
    "## Resources",
    [
      `- \`${r.help}\` — this text`,
      `- \`${r.status}\` — version, tier, brains and document counts (JSON)`,
      `- \`${r.brains}\` — the brains you may access (JSON)`,
      `- \`${r.listing}\` — a brain's documents (JSON, 100 per page; follow \`next_uri\`, i.e. \`?cursor=…\`)`,
      `- \`${r.document}\` — a document's markdown by id`,
      `- \`${r.path}\` — a document's markdown by brain and path (template)`,
      `- \`${r.search}\` — search results (JSON; template)`,
      "",
      "Subscribe to a document (by id or path) or a brain's listing to be notified when it changes.",
    ].join("\n"),
  ].join("\n\n");
}
