/** @module memory_meeting_extract: meeting notes or a transcript turned into structure. */
import type { MeetingResult } from "../../../core/synthesis/meetings.ts";
import { actionItemText } from "../../../core/synthesis/item_text.ts";
import { MeetingInput } from "../../../core/synthesis/synthesis_schemas.ts";
import { defineTool } from "../tool.ts";

/** Attendees, decisions, action items and open questions of a meeting. */
export const memoryMeetingExtract = defineTool({
  name: "memory_meeting_extract",
  title: "Extract a meeting",
  // Listed at read tier; only `store: true` writes, and that needs tier write (else forbidden).
  tier: "read",
  description:
    "Turn meeting notes or a transcript (content, or document: a stored document's id or path) into title, date, attendees, decisions, action items (owner, due) and open questions, by the configured model, else by rule. store: true (write tier) also saves it under /memory/project/meetings/, linked to its source.",
  input: MeetingInput,
  output: (o) => o.MeetingOutputSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  run: async (ctx, args) =>
    (await import("../../../core/synthesis/meetings.ts")).extractMeeting(ctx, ctx.caller, args, {
      signal: ctx.signal,
    }),
  summary: (r: MeetingResult) => {
    const lines = [`# ${r.title}${r.date ? ` (${r.date})` : ""}`];
    if (r.attendees.length) lines.push(`Attendees: ${r.attendees.join(", ")}`);
    const list = (title: string, items: string[]) => {
      lines.push(`${title}: ${items.length ? "" : "none"}`, ...items.map((x) => `- ${x}`));
    };
    list("Decisions", r.decisions);
    list("Action items", r.action_items.map(actionItemText));
    list("Open questions", r.open_questions);
    if (r.stored) lines.push(`Stored as ${r.stored.path} (source ${r.source?.path})`);
    if (r.not_stored) lines.push(`Not stored: ${r.not_stored}`);
    return lines.join("\n");
  },
  brainOf: (r: MeetingResult) => r.brain_id,
});
