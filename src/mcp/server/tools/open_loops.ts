/** @module memory_open_loops: unchecked tasks, unanswered questions and commitments. */
import type { OpenLoop, OpenLoopsResult } from "../../../core/synthesis/open_loops.ts";
import { ownerAndDue } from "../../../core/synthesis/item_text.ts";
import { OpenLoopsInput } from "../../../core/synthesis/synthesis_schemas.ts";
import { defineTool, READ_ONLY } from "../tool.ts";

/** Lines of the text summary. */
const SHOWN = 50;

/** What is still open in a brain. */
export const memoryOpenLoops = defineTool({
  name: "memory_open_loops",
  title: "Open loops",
  tier: "read",
  description:
    'What is still open: unchecked tasks (- [ ], TODO, follow-ups, action items), questions never answered later in the document, and commitments ("I\'ll…", "waiting on…"), newest first, with path, line, owner, due and first_seen. An item closes when a later version checks it off or answers it (include_closed shows those). since: a time, a date or an age (7d).',
  input: OpenLoopsInput,
  output: (o) => o.OpenLoopsOutputSchema,
  annotations: READ_ONLY,
  run: async (ctx, args) =>
    (await import("../../../core/synthesis/open_loops.ts")).openLoops(ctx, ctx.caller, args),
  summary: (r: OpenLoopsResult) => {
    const c = r.open_counts;
    const head = `${
      c.task + c.question + c.commitment
    } open: ${c.task} task(s), ${c.question} question(s), ${c.commitment} commitment(s)`;
    if (r.items.length === 0) return r.note ? `${head}. ${r.note}` : head;
    const more = r.items.length > SHOWN || r.truncated ? "\n…" : "";
    return `${head}\n${r.items.slice(0, SHOWN).map(line).join("\n")}${more}`;
  },
  brainOf: (r: OpenLoopsResult) => r.brain_id,
});

function line(i: OpenLoop): string {
  const who = ownerAndDue(i);
  const state = i.status === "closed" ? ` [closed: ${i.closed_by}]` : "";
  return `- ${i.kind}: ${i.text.replace(/\s+/g, " ")}${
    who ? ` (${who})` : ""
  } — ${i.path}:${i.line}, since ${i.first_seen.slice(0, 10)}${state}`;
}
