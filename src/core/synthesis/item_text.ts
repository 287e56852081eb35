/**
 * @module How found items read on one line, the same in the CLI's output and the MCP tools'
 * text summaries. Loads nothing else: the tools import it at start-up, the rules on first use.
 */
import type { ActionItem } from "../ports/language_model.ts";

/** "Title (date)": a meeting's heading, one space apart; no date when the title holds it. */
export function meetingHeading(m: { title: string; date: string | null }): string {
  return m.date && !m.title.includes(m.date) ? `${m.title} (${m.date})` : m.title;
}

/** "owner: task (due D)": a meeting's action item as listed. */
export function actionItemText(a: ActionItem): string {
  return `${a.owner ? `${a.owner}: ` : ""}${a.task}${a.due ? ` (due ${a.due})` : ""}`;
}

/** "owner, due D" of an open loop; empty when it names neither. */
export function ownerAndDue(item: { owner?: string; due?: string }): string {
  return [item.owner, item.due ? `due ${item.due}` : ""].filter(Boolean).join(", ");
}
