/**
 * @module Who does what by when, read from one to-do: "Kenji: write the runbook — by Wednesday",
 * "AI: @sofia — write a guide", "Bob to add jitter by Friday", "Dana will write the plan by
 * 14 June", "Laura: preparar la propuesta (para el viernes)", or a table row with Owner and Due
 * columns.
 */
import { dueIn, isDatePhrase } from "./calendar_words.ts";
import { ACTION_LABEL, NOT_A_PERSON, SPEAKER_STOP_WORDS, TODO_MARKER } from "./cues.ts";

/** A to-do with its owner and due date when the text gives them. */
export interface Assignment {
  task: string;
  owner?: string;
  due?: string;
}

const NAME = String.raw`@?[\p{L}][\p{L}\p{M}.'’-]*(?:[ \t][\p{Lu}][\p{L}\p{M}.'’-]*)?`;
/** "Name: task", "Name — task", "@name - task", "Name (PM): task". */
const OWNER_PREFIX = new RegExp(
  `^(${NAME})(?:[ \\t]*\\([^()\\n]{1,30}\\))?[ \\t]*(?:[:：]|[ \\t][—–-])[ \\t]*(.+)$`,
  "u",
);
/** "Name to do …", "Name will do …". */
const OWNER_VERB = new RegExp(
  `^(${NAME})[ \\t]+(?:to|will|should|must|needs to|is going to|is to)[ \\t]+(.+)$`,
  "u",
);
/** "(owner: Name)", "[Name]" or "— @name" at the end. */
const OWNER_SUFFIX =
  /[ \t]*(?:\((?:owner|who|assignee)\s*[:：]\s*([^)]{1,40})\)|[—–-][ \t]*(@[\p{L}][\p{L}\p{N}._-]*))\s*$/u;
const COLUMN_OWNER =
  /^(?:owner|owners|who|assignee|responsible|person|wer|verantwortlich|responsable|quién|quien|chi|quem|担当|担当者)$/iu;
const COLUMN_TASK =
  /^(?:action|actions|task|tasks|what|item|todo|to do|aufgabe|was|tarea|qué|que|tâche|quoi|cosa|attività|tarefa|o que|内容|タスク)$/iu;
const COLUMN_DUE =
  /^(?:due|due date|when|by|deadline|date|bis|termin|wann|fecha|cuándo|plazo|échéance|quand|scadenza|quando|prazo|期限|期日)$/iu;

/** The owner, task and due date of a to-do's text. */
export function readAssignment(
  text: string,
  o: { people?: ReadonlySet<string> } = {},
): Assignment {
  let rest = text.trim().replace(ACTION_LABEL, "");
  rest = rest.replace(TODO_MARKER, (m) => m.replace(/TODO|FIXME|XXX/, "")).replace(
    /^[\s:：,-]+/,
    "",
  );
  let owner: string | undefined;
  const prefix = ownerPrefix(rest, o);
  if (prefix) {
    owner = prefix.owner;
    rest = prefix.rest;
  } else {
    const verb = OWNER_VERB.exec(rest);
    if (verb && isOwner(verb[1], o.people, { strict: true })) {
      owner = cleanName(verb[1]);
      rest = verb[2];
    }
  }
  const suffix = OWNER_SUFFIX.exec(rest);
  if (suffix) {
    owner ??= cleanName(suffix[1] ?? suffix[2]);
    rest = rest.slice(0, suffix.index);
  }
  const due = dueIn(rest);
  let task = rest;
  if (due) {
    // A due date in brackets or after a dash is a note on the task, not part of it.
    const before = rest.slice(0, due.start);
    const tail = rest.slice(due.end).replace(/^[\s)）.,;]+/, "");
    task = tail === "" ? before.replace(/[\s(（,;:—–-]+$/, "") : rest;
  }
  task = task.replace(/\s*\((?:done|erledigt|hecho|fait)[^)]*\)\s*$/iu, "").trim();
  return {
    task: task || rest.trim(),
    ...(owner ? { owner } : {}),
    ...(due ? { due: due.due } : {}),
  };
}

/** "Kenji: write the runbook", "Alice (PM): I'll fix it": the person named first, and the rest. */
export function ownerPrefix(
  text: string,
  o: { people?: ReadonlySet<string> } = {},
): { owner: string; rest: string } | null {
  const prefix = OWNER_PREFIX.exec(text);
  if (!prefix || !isOwner(prefix[1], o.people)) return null;
  return { owner: cleanName(prefix[1]), rest: prefix[2] };
}

/** A table row's owner, task and due date, by its header; null when the header has no task column. */
export function readRow(cells: string[], header: string[]): Assignment | null {
  const at = (re: RegExp) => header.findIndex((h) => re.test(h.replace(/\*/g, "").trim()));
  const taskCol = at(COLUMN_TASK);
  if (taskCol < 0 || !cells[taskCol]) return null;
  const ownerCol = at(COLUMN_OWNER);
  const dueCol = at(COLUMN_DUE);
  const owner = ownerCol >= 0 ? cells[ownerCol]?.trim() : "";
  const due = dueCol >= 0 ? cells[dueCol]?.trim() : "";
  return {
    task: cells[taskCol].trim(),
    ...(owner ? { owner: cleanName(owner) } : {}),
    ...(due && (isDatePhrase(due) || due.length <= 30) ? { due } : {}),
  };
}

/** Whether `name` can be a person owning a task (and not a label such as "Decision"). */
function isOwner(
  name: string,
  people: ReadonlySet<string> | undefined,
  o: { strict?: boolean } = {},
): boolean {
  const bare = cleanName(name);
  const lower = bare.toLowerCase();
  if (lower === "me" || lower === "ich" || lower === "moi" || lower === "yo") return true;
  if (SPEAKER_STOP_WORDS.has(lower) || NOT_A_PERSON.has(lower)) return false;
  if (people && [...people].some((p) => p.toLowerCase() === lower || firstName(p) === lower)) {
    return true;
  }
  if (name.startsWith("@")) return true;
  // Without a list of people, a capitalised word of a name's length is taken for a name.
  if (o.strict) {
    return /^\p{Lu}[\p{Ll}\p{M}'’-]{1,20}(?: \p{Lu}[\p{Ll}\p{M}'’-]{1,20})?$/u.test(bare);
  }
  return /^\p{Lu}[\p{L}\p{M}.'’-]{0,20}(?: \p{Lu}[\p{L}\p{M}.'’-]{1,20})?$/u.test(bare) ||
    /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]{1,6}$/u.test(bare);
}

function firstName(name: string): string {
  return name.split(/\s+/)[0].toLowerCase();
}

function cleanName(name: string): string {
  return name.trim().replace(/^@/, "").replace(/[*_]/g, "").trim();
}
