/** @module memory_meeting_extract by rule, through the service: speaker prefixes name owners and attendees, in every transcript form, and labels are not speakers. */
import assert from "node:assert/strict";
import { silentLogger } from "../../../src/core/logger.ts";
import { extractMeeting, type MeetingResult } from "../../../src/core/synthesis/meetings.ts";
import { ListInput } from "../../../src/core/schemas.ts";
import { MeetingInput } from "../../../src/core/synthesis/synthesis_schemas.ts";
import { ModelStack } from "../../../src/providers/stack.ts";
import { ADMIN, openService, tempDir } from "../../helpers.ts";

/** No model configured: the rules answer, as they do for a fresh install. */
const rules = new ModelStack([], { logger: silentLogger });

/** memory_meeting_extract on `content`, in a fresh brain. */
async function extract(
  content: string,
  o: { store?: boolean } = {},
): Promise<MeetingResult & { note?: string }> {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const r = await extractMeeting(
    { service: s.service, model: rules },
    ADMIN,
    MeetingInput.parse({ content, ...(o.store ? { store: true } : {}) }),
  );
  if (!r.stored) return r;
  const note = await s.service.get(ADMIN, { path: r.stored.path });
  return { ...r, note: note.content };
}

/** Action items as [owner, task, due]. */
const items = (r: MeetingResult) => r.action_items.map((a) => [a.owner, a.task, a.due]);

Deno.test("meeting: the issue's standup — speakers own their items, the title line is no item", async () => {
  const r = await extract(
    "Standup 2026-11-26\nAlice: I'll fix the login bug by Monday\nBob: I will ping legal\n",
    { store: true },
  );
  assert.equal(r.provider, "extractive");
  assert.equal(r.title, "Standup 2026-11-26");
  assert.equal(r.date, "2026-11-26");
  assert.deepEqual(r.attendees, ["Alice", "Bob"]);
  assert.deepEqual(r.action_items, [
    { task: "I'll fix the login bug by Monday", owner: "Alice", due: "Monday" },
    { task: "I will ping legal", owner: "Bob" },
  ]);
  assert.deepEqual(r.decisions, []);
  assert.deepEqual(r.open_questions, []);
  // The stored note keeps them as the open-loop rules read them back.
  assert.equal(r.stored?.path, "/memory/project/meetings/2026-11-26-standup.md");
  assert.match(r.note!, /^# Standup 2026-11-26\n\nDate: 2026-11-26\nAttendees: Alice, Bob\n/);
  assert.match(
    r.note!,
    /## Action items\n\n- \[ \] I'll fix the login bug by Monday — due Monday \(owner: Alice\)\n- \[ \] I will ping legal \(owner: Bob\)\n/,
  );
});

Deno.test("meeting: every speaker form names the owner and the attendees", async () => {
  const forms: [string, string][] = [
    ["Name:", "Ann: I'll send the deck today\nBo: I will book the room"],
    ["**Name**:", "**Ann**: I'll send the deck today\n**Bo**: I will book the room"],
    ["**Name:**", "**Ann:** I'll send the deck today\n**Bo:** I will book the room"],
    ["[10:02] Name:", "[10:02] Ann: I'll send the deck today\n[10:03] Bo: I will book the room"],
    ["Name (PM):", "Ann (PM): I'll send the deck today\nBo (Ops): I will book the room"],
    [
      "[10:02] Name (PM):",
      "[10:02] Ann (PM): I'll send the deck today\n[10:03] Bo (Ops): I will book the room",
    ],
    ["- Name: items", "- Ann: I'll send the deck today\n- Bo: I will book the room"],
  ];
  for (const [form, turns] of forms) {
    const r = await extract(`Weekly sync\n${turns}\n`);
    assert.equal(r.title, "Weekly sync", form);
    assert.deepEqual(r.attendees, ["Ann", "Bo"], form);
    assert.deepEqual(items(r), [
      ["Ann", "I'll send the deck today", "today"],
      ["Bo", "I will book the room", undefined],
    ], form);
  }
});

Deno.test("meeting: WebVTT captions — header, timings, cue ids, NOTE blocks and voice tags", async () => {
  const r = await extract([
    "WEBVTT - Design sync 2026-11-24",
    "",
    "NOTE",
    "Exported by the call app: I'll never be read as a turn.",
    "",
    "intro",
    "00:00:01.000 --> 00:00:04.000",
    "<v Priya Shah>I'll write the copy</v>",
    "",
    "2",
    "00:00:04.000 --> 00:00:06.500 align:start",
    "<v Priya Shah>by Thursday.</v>",
    "",
    "00:06.500 --> 00:09.000",
    "<v.loud Marco>I will update the <i>Figma</i> file.</v>",
  ].join("\n"));
  assert.equal(r.title, "Design sync 2026-11-24");
  assert.equal(r.date, "2026-11-24");
  assert.deepEqual(r.attendees, ["Priya Shah", "Marco"]);
  // A sentence split over two cues of one speaker is one item.
  assert.deepEqual(items(r), [
    ["Priya Shah", "I'll write the copy by Thursday.", "Thursday"],
    ["Marco", "I will update the Figma file.", undefined],
  ]);
});

Deno.test("meeting: SRT captions — indexes, timings, Name: prefixes and continued cues", async () => {
  const r = await extract([
    "1",
    "00:00:01,000 --> 00:00:03,500",
    "SAM: Our export failed, sorry about that.",
    "",
    "2",
    "00:00:03,600 --> 00:00:08,000",
    "I'll reset the credentials",
    "and send you a new token today.",
    "",
    "3",
    "00:00:08,200 --> 00:00:12,000",
    "- JORDAN: Thanks. I will tell the ops team.",
  ].join("\n"));
  assert.equal(r.title, "Meeting notes");
  assert.deepEqual(r.attendees, ["SAM", "JORDAN"]);
  assert.deepEqual(items(r), [
    ["SAM", "I'll reset the credentials and send you a new token today.", "today"],
    ["JORDAN", "I will tell the ops team.", undefined],
  ]);
});

Deno.test("meeting: labels, links and times are not speakers; their cues still count", async () => {
  const r = await extract([
    "Sync 2026-11-26",
    "Alice: I'll fix the login bug",
    "Bob: I will ping legal",
    "Note: the demo is recorded",
    "TODO: book a room for the retro",
    "Decision: we go with Postgres",
    "Action: Dana to send the deck by Friday",
    "Slides: https://example.com/deck",
    "Recording: https://example.com/video",
    "Start: 10:30",
    "10:45 Break: coffee",
  ].join("\n"));
  assert.deepEqual(r.attendees, ["Alice", "Bob"]);
  assert.deepEqual(r.decisions, ["we go with Postgres"]);
  assert.deepEqual(items(r), [
    [undefined, "book a room for the retro", undefined],
    ["Dana", "send the deck", "Friday"],
    ["Alice", "I'll fix the login bug", undefined],
    ["Bob", "I will ping legal", undefined],
  ]);
});

Deno.test("meeting: topic lines are not a transcript; without speakers, a promise stays the writer's", async () => {
  // Two "Word: text" lines with no first or second person in them label topics.
  const topics = await extract([
    "Pricing call",
    "Pricing: we agreed to keep the three tiers.",
    "Trial: still open whether 14 or 30 days is better?",
  ].join("\n"));
  assert.deepEqual(topics.attendees, []);
  assert.deepEqual(topics.decisions, ["Pricing: we agreed to keep the three tiers."]);
  // Title, date and attendee lines head the notes and are never part of an item.
  const notes = await extract([
    "Retro",
    "Tuesday, 24 November 2026",
    "Attendees: Ann, Bo",
    "I will send the notes to the team.",
  ].join("\n"));
  assert.equal(notes.title, "Retro");
  assert.equal(notes.date, "2026-11-24");
  assert.deepEqual(notes.attendees, ["Ann", "Bo"]);
  assert.deepEqual(items(notes), [["me", "I will send the notes to the team.", undefined]]);
  // A first line that promises something is said, not a title to leave out.
  const said = await extract("Alice: I'll fix the login bug\n");
  assert.deepEqual(items(said), [["Alice", "I'll fix the login bug", undefined]]);
  assert.deepEqual(said.attendees, ["Alice"]);
});

Deno.test("meeting: a first-person to-do in a turn is its speaker's; one for someone else is not", async () => {
  const r = await extract([
    "Ann: TODO: I need to rotate the API keys",
    "Bo: TODO: Carol to review the budget",
    "Ann: Action item for me: write the summary",
  ].join("\n"));
  assert.deepEqual(items(r), [
    ["Ann", "I need to rotate the API keys", undefined],
    ["Carol", "review the budget", undefined],
    ["Ann", "write the summary", undefined],
  ]);
});

Deno.test("meeting: store on a text with no meeting in it stores nothing and says so", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const r = await extractMeeting(
    { service: s.service, model: rules },
    ADMIN,
    MeetingInput.parse({ content: "x", store: true }),
  );
  assert.equal(r.stored, undefined);
  assert.equal(r.source, undefined);
  assert.match(r.not_stored ?? "", /^no meeting found in it .*so nothing was stored$/);
  const listed = await s.service.list(ADMIN, ListInput.parse({}));
  assert.equal(listed.items.length, 0, "neither the note nor its source was written");
});
