/**
 * @module Tasks in a note: checkboxes (`- [ ]` open, `- [x]` done, struck-out dropped), TODO and
 * FIXME markers, "Action:" / "AI:" lines, "follow up with …", and the items of a list under an
 * "Action items" / "Next steps" / "Aufgaben" heading or label. Code — fenced, indented or inline
 * — never holds a task.
 */
import { type Assignment, readAssignment, readRow } from "./assignment.ts";
import { ACTION_LABEL, CONTEXT_HEADING, FOLLOW_UP, TASK_HEADING, TODO_MARKER } from "./cues.ts";
import type { NoteLine } from "./note_lines.ts";
import type { NoteUnit } from "./note_units.ts";

/** A task found in a note. */
export interface FoundTask extends Assignment {
  /** The task as written (without list marker or checkbox). */
  text: string;
  line: number;
  status: "open" | "closed";
  /** How it was recognised. */
  via: "checkbox" | "marker" | "action" | "follow-up" | "list";
  /** Who said it, in a transcript or chat log. */
  speaker?: string;
}

/** Every task of a note's units, open and closed, in order. */
export function findTasks(
  units: NoteUnit[],
  o: { people?: ReadonlySet<string> } = {},
): FoundTask[] {
  const out: FoundTask[] = [];
  for (const u of units) {
    const found = taskOf(u, o.people);
    if (found) out.push(found);
  }
  return out;
}

function taskOf(u: NoteUnit, people: ReadonlySet<string> | undefined): FoundTask | null {
  const at = u.at;
  const base = { line: u.line, ...(at.speaker ? { speaker: at.speaker } : {}) };
  if (u.kind === "item" && at.checkbox) {
    const closed = at.checkbox === "done" || at.struck;
    return {
      ...base,
      ...assign(u.text, people),
      text: u.text,
      status: closed ? "closed" : "open",
      via: "checkbox",
    };
  }
  const marker = TODO_MARKER.exec(u.plain);
  if (marker) {
    const text = u.text.slice(marker.index + marker[0].length).replace(/^[\s:：,.-]+/, "").trim();
    if (text.length >= 3) {
      return {
        ...base,
        ...assign(text, people),
        text,
        status: at.struck ? "closed" : "open",
        via: "marker",
      };
    }
  }
  const action = ACTION_LABEL.exec(u.plain);
  if (action && u.text.length > action[0].length + 2) {
    const text = u.text.slice(action[0].length).trim();
    const a = assign(text, people);
    const forWhom = action[1]?.toLowerCase() === "me" ? at.speaker ?? "me" : action[1];
    return {
      ...base,
      ...a,
      ...(a.owner ? {} : forWhom ? { owner: forWhom } : {}),
      text,
      status: at.struck ? "closed" : "open",
      via: "action",
    };
  }
  if (FOLLOW_UP.test(u.plain) && !/\bfollowed\b/i.test(u.plain)) {
    return { ...base, ...assign(u.text, people), text: u.text, status: "open", via: "follow-up" };
  }
  if ((u.kind === "item" || u.kind === "row") && inTaskList(at)) {
    if (u.kind === "row") {
      const row = at.cells && at.header ? readRow(at.cells, at.header) : null;
      if (!row) return null;
      return { ...base, ...row, text: row.task, status: "open", via: "list" };
    }
    return {
      ...base,
      ...assign(u.text, people),
      text: u.text,
      status: at.struck ? "closed" : "open",
      via: "list",
    };
  }
  return null;
}

/** Whether a list item or row sits under a to-do heading or a "To do:" label. */
function inTaskList(line: NoteLine): boolean {
  if (line.label && TASK_HEADING.test(line.label)) return true;
  const heading = line.section.at(-1);
  return heading !== undefined && TASK_HEADING.test(heading) && !CONTEXT_HEADING.test(heading);
}

function assign(text: string, people: ReadonlySet<string> | undefined): Assignment {
  return readAssignment(text, { people });
}
