/**
 * @module How exposed upstream capabilities look to agents: their list entries (the approved
 * definition under the exposed name, its description saying where it comes from), and the
 * `_meta["engram/upstream"]` every result carries, so an agent can tell upstream text from the
 * user's own (docs/upstream.md#exposure).
 */
import type { Prompt, ResourceTemplate, Tool } from "../../sdk.ts";
import { UPSTREAM_META } from "../../server/upstream_tools.ts";
import type { ExposedPrompt, ExposedTemplate, ExposedTool } from "./exposure_plan.ts";

/** The tools/list entry of an exposed tool: its approved definition under its exposed name. */
export function toolEntry(t: ExposedTool): Tool {
  const d = t.definition as Partial<Tool>;
  return {
    ...d,
    name: t.exposed,
    description: through(d.description, `upstream ${t.server} tool ${t.tool}`),
    inputSchema: (d.inputSchema ?? { type: "object" }) as Tool["inputSchema"],
  } as Tool;
}

/** The prompts/list entry of an exposed prompt: its approved definition under its exposed name. */
export function promptEntry(p: ExposedPrompt): Prompt {
  const d = p.definition as Partial<Prompt>;
  return {
    ...d,
    name: p.exposed,
    description: through(d.description, `upstream ${p.server} prompt ${p.prompt}`),
  } as Prompt;
}

/** The resources/templates/list entry of an exposed template: its URIs behind `upstream://`. */
export function templateEntry(t: ExposedTemplate): ResourceTemplate {
  const d = t.definition as Partial<ResourceTemplate>;
  return {
    ...d,
    uriTemplate: t.exposed,
    name: `mcp_${t.server}_${t.template}`,
    description: through(d.description, `upstream ${t.server} resource template ${t.template}`),
  } as ResourceTemplate;
}

/** A description with where the capability comes from appended. */
function through(description: string | undefined, what: string): string {
  return `${description ?? ""}\n\n(${what}, through engram)`.trim();
}

/** `result` with `_meta["engram/upstream"]`: whose it is (server, name, trust). */
export function withOrigin<T extends { _meta?: Record<string, unknown> }>(
  result: T,
  from: { server: string; trust: string },
  name: Record<string, string>,
): T {
  return {
    ...result,
    _meta: {
      ...result._meta,
      [UPSTREAM_META]: { server: from.server, ...name, trust: from.trust },
    },
  };
}
