/**
 * @module The open loops of one text: tasks, questions and commitments, each with its line and
 * whether the text itself already closes it (a checked box, an answer).
 */
import { findCommitments } from "./commitment_rules.ts";
import { noteLines } from "./note_lines.ts";
import { noteUnits } from "./note_units.ts";
import { findQuestions } from "./question_rules.ts";
import { findTasks } from "./task_rules.ts";

/** Kinds of open loop. */
export type LoopKind = "task" | "question" | "commitment";

/** One loop found in a text. */
export interface FoundLoop {
  kind: LoopKind;
  text: string;
  owner?: string;
  due?: string;
  line: number;
  status: "open" | "closed";
}

/** Every loop of a text, in line order. */
export function findLoops(text: string): FoundLoop[] {
  const units = noteUnits(noteLines(text));
  const tasks = findTasks(units);
  const taskLines = new Set(tasks.map((t) => t.line));
  const loops: FoundLoop[] = [
    ...tasks.map((t): FoundLoop => ({
      kind: "task",
      text: t.text,
      ...(t.owner ? { owner: t.owner } : {}),
      ...(t.due ? { due: t.due } : {}),
      line: t.line,
      status: t.status,
    })),
    ...findQuestions(units).filter((q) => !taskLines.has(q.line)).map((q): FoundLoop => ({
      kind: "question",
      text: q.text,
      ...(q.speaker ? { owner: q.speaker } : {}),
      line: q.line,
      status: q.status,
    })),
    // A to-do that also reads as a promise ("- [ ] I'll update the docs") is listed once, as a task.
    ...findCommitments(units).filter((c) => !taskLines.has(c.line)).map((c): FoundLoop => ({
      kind: "commitment",
      text: c.text,
      ...(c.owner ? { owner: c.owner } : {}),
      ...(c.due ? { due: c.due } : {}),
      line: c.line,
      status: "open",
    })),
  ];
  return loops.sort((a, b) => a.line - b.line);
}
