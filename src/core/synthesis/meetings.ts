/**
 * @module memory_meeting_extract: meeting notes or a transcript — given as text, or a stored
 * document — turned into title, date, attendees, decisions, action items (owner, due) and open
 * questions by the model stack (rules when no model answers). With `store`, the result is
 * written as a note linked (`[[…]]`) to its source; text given inline is stored first as the
 * source transcript. Storing needs tier write.
 */
import { EngramError } from "../errors.ts";
import { normalizePath, slugify } from "../markdown/naming.ts";
import type { MemoryService } from "../memory_service.ts";
import type { ActionItem, MeetingDraft, MemoryModel } from "../ports/language_model.ts";
import type { MeetingArgs } from "./synthesis_schemas.ts";
import { type CallerContext, type DocumentWithContent, tierAllows } from "../types.ts";

/** A stored document, by id and path. */
export interface DocumentPointer {
  document_id: string;
  path: string;
}

/** memory_meeting_extract's result. */
export interface MeetingResult extends MeetingDraft {
  brain_id: string;
  /** The document read (or stored as the source, with `store`). */
  source?: DocumentPointer;
  /** The note written, with `store`. */
  stored?: DocumentPointer;
  /** With `store`, why nothing was written: the text held no meeting. */
  not_stored?: string;
}

/** Where stored meeting notes and their inline sources go. */
const NOTES_FOLDER = "/memory/project/meetings/";
const SOURCES_FOLDER = "/transcripts/meetings/";
/** The stored note's metadata key naming its source: open loops list the note's items, not both. */
export const MEETING_SOURCE_KEY = "meeting_source";

/** Reads a meeting and, with `store`, keeps it as a note. */
export async function extractMeeting(
  deps: { service: MemoryService; model: MemoryModel; now?: () => Date },
  caller: CallerContext,
  args: MeetingArgs,
  o: { signal?: AbortSignal } = {},
): Promise<MeetingResult> {
  if (args.store && !tierAllows(caller.tier, "write")) {
    throw new EngramError(
      "forbidden",
      `store: true writes a note and needs tier write; this session runs at tier ${caller.tier} (start with --tier write or use a write token), or call again without store`,
    );
  }
  const brain = await deps.service.brain(caller, args.brain);
  const doc = args.document === undefined ? null : await readSource(deps.service, caller, {
    brain: brain.id,
    slug: brain.slug,
    document: args.document,
  });
  const text = doc?.content ?? args.content ?? "";
  if (text.trim() === "") {
    throw new EngramError(
      "invalid_argument",
      doc
        ? `document ${doc.path} is empty; nothing to read`
        : "content holds only blank space; give the notes or transcript text",
    );
  }
  const draft = await deps.model.extractMeeting({ text, title: args.title, signal: o.signal });
  const result: MeetingResult = {
    ...draft,
    brain_id: brain.id,
    ...(doc ? { source: { document_id: doc.id, path: doc.path } } : {}),
  };
  if (!args.store) return result;
  // A text with nothing a meeting leaves behind is not stored as one: an empty note under
  // /memory/project/meetings/ would only be found, and read, as noise.
  const empty = draft.attendees.length + draft.decisions.length + draft.action_items.length +
      draft.open_questions.length === 0;
  if (empty) {
    return {
      ...result,
      not_stored:
        "no meeting found in it (no attendees, decisions, action items or open questions), so nothing was stored",
    };
  }
  const day = draft.date && /^\d{4}-\d{2}-\d{2}$/.test(draft.date)
    ? draft.date
    : (deps.now ?? (() => new Date()))().toISOString().slice(0, 10);
  // "Sync 2024-05-14" is stored as 2024-05-14-sync, not 2024-05-14-sync-2024-05-14.
  const titleSlug = slugify(draft.title, 60).replace(day, "").replace(/-{2,}/g, "-")
    .replace(/^-|-$/g, "");
  const name = `${day}-${titleSlug || "meeting"}`;
  const source = doc
    ? { document_id: doc.id, path: doc.path }
    : await storeSource(deps.service, caller, { brain: brain.id, name, text, title: draft.title });
  const note = await deps.service.remember(caller, {
    brain: brain.id,
    path: `${NOTES_FOLDER}${name}.md`,
    title: draft.title,
    content: meetingNote(draft, source.path),
    tags: ["meeting"],
    metadata: { [MEETING_SOURCE_KEY]: source.path },
  }, { source: "extract" });
  return { ...result, source, stored: { document_id: note.id, path: note.path } };
}

/** The document named by id or brain path, or `not_found` saying it must be a stored one. */
async function readSource(
  service: MemoryService,
  caller: CallerContext,
  o: { brain: string; slug: string; document: string },
): Promise<DocumentWithContent> {
  const ref = /^doc_/.test(o.document) ? { id: o.document } : { path: normalizePath(o.document) };
  try {
    return await service.get(caller, { ...ref, brain: o.brain });
  } catch (err) {
    if (!(err instanceof EngramError) || err.code !== "not_found") throw err;
    throw new EngramError(
      "not_found",
      `no document "${o.document}" in brain "${o.slug}"; document takes a stored document's id or brain path (such as /transcripts/…), not a local file — pass the text as content, or ingest the file first (memory_ingest_file, engram ingest)`,
    );
  }
}

async function storeSource(
  service: MemoryService,
  caller: CallerContext,
  o: { brain: string; name: string; text: string; title: string },
): Promise<DocumentPointer> {
  const doc = await service.remember(caller, {
    brain: o.brain,
    path: `${SOURCES_FOLDER}${o.name}.md`,
    title: `${o.title} (transcript)`.slice(0, 512),
    content: o.text,
    tags: ["meeting", "transcript"],
  }, { source: "ingest" });
  return { document_id: doc.id, path: doc.path };
}

/** The note stored for a meeting: markdown with open checkboxes, linked to its source. */
function meetingNote(m: MeetingDraft, sourcePath: string): string {
  const link = sourcePath.replace(/^\/+/, "").replace(/\.md$/i, "");
  const lines = [`# ${m.title}`, ""];
  if (m.date) lines.push(`Date: ${m.date}`);
  if (m.attendees.length) lines.push(`Attendees: ${m.attendees.join(", ")}`);
  lines.push(`Source: [[${link}]]`, "");
  const section = (title: string, items: string[]) => {
    if (items.length === 0) return;
    lines.push(`## ${title}`, "", ...items, "");
  };
  section("Decisions", m.decisions.map((d) => `- ${oneLine(d)}`));
  section("Action items", m.action_items.map((a) => `- [ ] ${actionLine(a)}`));
  section("Open questions", m.open_questions.map((q) => `- ${oneLine(q)}`));
  return `${lines.join("\n").trimEnd()}\n`;
}

/** "task — due D (owner: O)": the shape the open-loop rules read back with owner and due. */
function actionLine(a: ActionItem): string {
  return `${oneLine(a.task)}${a.due ? ` — due ${oneLine(a.due)}` : ""}${
    a.owner ? ` (owner: ${oneLine(a.owner)})` : ""
  }`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
