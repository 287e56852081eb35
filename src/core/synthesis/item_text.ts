/**
 * @module How found items read on one line, the same in the CLI's output and the MCP tools'
 * text summaries. Loads nothing else: the tools import it at start-up, the rules on first use.
 */
import type { ActionItem } from "../ports/language_model.ts";

/** "owner: task (due D)": a meeting's action item as listed. */
export function actionItemText(a: ActionItem): string {
  return `${a.owner ? `${a.owner}: ` : ""}${a.task}${a.due ? ` (due ${a.due})` : ""}`;
}

/** "owner, due D" of an open loop; empty when it names neither. */
export function ownerAndDue(item: { owner?: string; due?: string }): string {
  return [item.owner, item.due ? `due ${item.due}` : ""].filter(Boolean).join(", ");
}
