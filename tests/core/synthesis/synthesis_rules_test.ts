/** @module The extraction rules on their own: tasks, questions, commitments, decisions and meetings, with the bad inputs (code blocks, non-English text, a 5 MB transcript). */
import assert from "node:assert/strict";
import { findDecisionsIn } from "../../../src/core/synthesis/decision_rules.ts";
import { findLoops } from "../../../src/core/synthesis/loop_rules.ts";
import { readMeeting } from "../../../src/core/synthesis/meeting_rules.ts";
import { readAssignment } from "../../../src/core/synthesis/assignment.ts";
import { calendarDate, dueIn } from "../../../src/core/synthesis/calendar_words.ts";
import { groundedAnswerText, supportingSentences } from "../../../src/core/answering/grounding.ts";

const open = (text: string, kind = "task") =>
  findLoops(text).filter((l) => l.kind === kind && l.status === "open").map((l) => l.text);

Deno.test("tasks: checkboxes in code fences, indented code and inline code are not tasks", () => {
  const text = [
    "# Notes",
    "",
    "The syntax is `- [ ] text`, and `TODO` marks a to-do.",
    "",
    "```markdown",
    "- [ ] inside a fence",
    "TODO: inside a fence",
    "```",
    "",
    "    - [ ] indented code",
    "",
    "- [ ] a real task",
    "- [x] a done task",
    "~~- [ ] a dropped task~~",
    "- [ ] ~~struck task~~",
    "There are no TODOs left here.",
    "FIXME: the real bug",
  ].join("\n");
  assert.deepEqual(open(text), ["a real task", "the real bug"]);
  const closed = findLoops(text).filter((l) => l.kind === "task" && l.status === "closed");
  assert.deepEqual(closed.map((l) => l.text), ["a done task", "struck task"]);
  assert.deepEqual(findLoops(text).find((l) => l.text === "a real task")?.line, 12);
});

Deno.test("tasks: action-item lists, owners and due dates, in several languages", () => {
  const text = [
    "## Action items",
    "- Kenji: write the rollback runbook — by Wednesday 22 May",
    "- AI: @sofia — write a short guide (before Monday)",
    "- Bob to add jitter to the retry helper by Friday",
    "",
    "## Aufgaben",
    "- Felix: Logging-Richtlinie veröffentlichen (bis 31.05.)",
    "",
    "Tareas:",
    "- [ ] Laura: preparar la propuesta (para el viernes)",
  ].join("\n");
  const loops = findLoops(text).filter((l) => l.kind === "task");
  assert.deepEqual(loops.map((l) => [l.owner, l.due]), [
    ["Kenji", "Wednesday 22 May"],
    ["sofia", "Monday"],
    ["Bob", "Friday"],
    ["Felix", "31.05."],
    ["Laura", "viernes"],
  ]);
  assert.deepEqual(readAssignment("Dev: update the rate limits (due 2024-04-15)"), {
    task: "update the rate limits",
    owner: "Dev",
    due: "2024-04-15",
  });
});

Deno.test("questions: open unless answered later; transcripts need another speaker's answer", () => {
  const notes = [
    "Is the upload limit enough? Checked: the biggest export is 31 MB, so yes.",
    "",
    "Should we shard the ledger?",
    "",
    "Open: who signs off the cutover?",
  ].join("\n");
  assert.deepEqual(open(notes, "question"), [
    "Should we shard the ledger?",
    "Open: who signs off the cutover?",
  ]);
  const transcript = [
    "[00:01] Ann: Do you support SSO?",
    "[00:02] Bo: Yes, SAML and OIDC.",
    "[00:03] Ann: Can we export audit logs?",
    "[00:04] Bo: Not yet, I can't give you a date.",
  ].join("\n");
  assert.deepEqual(open(transcript, "question"), ["Can we export audit logs?"]);
});

Deno.test("commitments: promises and waiting, not questions, negations or decisions", () => {
  const text = [
    "I'll send the deck tomorrow.",
    "We're still waiting on the signed DPA.",
    "I won't be able to join.",
    "Will you send it?",
    "We'll staff onboarding with two engineers, decided by Carol.",
    "Dana will write the plan by 14 June.",
  ].join("\n\n");
  const found = findLoops(text).filter((l) => l.kind === "commitment");
  assert.deepEqual(found.map((c) => [c.text, c.owner, c.due]), [
    ["I'll send the deck tomorrow.", "me", "tomorrow"],
    ["We're still waiting on the signed DPA.", undefined, undefined],
    ["Dana will write the plan by 14 June.", "Dana", "14 June"],
  ]);
});

Deno.test("decisions: made ones, not proposals or open ones; rationale and who", () => {
  const text = [
    "# Sync",
    "",
    "We decided to keep Stripe because it handles SCA for us.",
    "We need to decide on the queue.",
    "No decision yet on analytics.",
    "I propose we drop story points.",
    "Frank suggested dropping goal 3; after discussion, we settled on keeping it at 10%.",
    "Wir haben beschlossen, JSON-Logs vorzuschreiben.",
    "Nous avons décidé de garder l'hébergement.",
    "If we decide to drop Elasticsearch, logging needs a new home.",
    "",
    "## Decisions",
    "- Bulk edit ships on Monday.",
    "- Bulk edit ships to everyone on Monday.",
    "",
    "<maria> ok, going with a rollback, not a hotfix",
  ].join("\n");
  const found = findDecisionsIn(text);
  assert.deepEqual(found.map((d) => d.statement), [
    "We decided to keep Stripe",
    "after discussion, we settled on keeping it at 10%.",
    "Wir haben beschlossen, JSON-Logs vorzuschreiben.",
    "Nous avons décidé de garder l'hébergement.",
    "Bulk edit ships on Monday.",
    "ok, going with a rollback, not a hotfix",
  ]);
  assert.equal(found[0].rationale, "it handles SCA for us");
  assert.equal(found.at(-1)?.who, "maria");
});

Deno.test("meetings: title, date, attendees, decisions, action items, open questions", () => {
  const m = readMeeting([
    "# Platform sync — 14 May 2024",
    "",
    "**Attendees:** Maria Gonzalez, Kenji Watanabe (notes)",
    "Apologies: Lucas",
    "",
    "- Agreed: the upgrade happens on Sunday.",
    "",
    "## Action items",
    "- [ ] Kenji: write the runbook (due 20 May)",
    "- [x] Maria: share the draft",
    "",
    "## Open questions",
    "- Do we split weekend shifts?",
  ].join("\n"));
  assert.equal(m.title, "Platform sync — 14 May 2024");
  assert.equal(m.date, "2024-05-14");
  assert.deepEqual(m.attendees, ["Maria Gonzalez", "Kenji Watanabe"]);
  assert.deepEqual(m.decisions, ["the upgrade happens on Sunday."]);
  assert.deepEqual(m.action_items, [{ task: "write the runbook", owner: "Kenji", due: "20 May" }]);
  assert.deepEqual(m.open_questions, ["Do we split weekend shifts?"]);
});

Deno.test("meetings: a quarter or a period in the title is not the meeting's date", () => {
  assert.equal(readMeeting("# Q3 planning\n\nAttendees: Ana, Bo\n").date, null);
  assert.equal(readMeeting("# End of quarter review\n\nAttendees: Ana\n").date, null);
  assert.equal(readMeeting("# Q3 planning — 14 May 2024\n\nAttendees: Ana\n").date, "2024-05-14");
  assert.equal(readMeeting("# Q3 planning\n\nDate: Tuesday\n").date, "Tuesday");
});

Deno.test("meetings: a transcript's promises belong to their speakers", () => {
  const m = readMeeting([
    "Call with Contoso",
    "[00:00:52] Carol Diaz: That's a known bug. I'll send you a workaround today.",
    "[00:03:00] Jun Park: We're still waiting on the signed DPA.",
    "[00:03:08] Carol Diaz: I'll chase legal and get it to you by Monday.",
  ].join("\n"));
  assert.deepEqual(m.attendees, ["Carol Diaz", "Jun Park"]);
  assert.deepEqual(m.action_items, [
    { task: "I'll send you a workaround today.", owner: "Carol Diaz", due: "today" },
    // "it" is the DPA of the turn before: the promise keeps what it refers to.
    {
      task: "We're still waiting on the signed DPA. I'll chase legal and get it to you by Monday.",
      owner: "Carol Diaz",
      due: "Monday",
    },
  ]);
});

Deno.test("meetings: a 5 MB transcript is read in linear time", () => {
  const turn = (i: number) =>
    `[${String(Math.floor(i / 60) % 24).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}] ${
      i % 2 ? "Ann" : "Bo"
    }: We went over item ${i} of the backlog and nothing changed. I'll update ticket ${i}.\n`;
  const parts: string[] = ["# Marathon call\n"];
  let size = 0;
  for (let i = 0; size < 5_000_000; i++) {
    parts.push(turn(i));
    size += parts.at(-1)!.length;
  }
  const started = performance.now();
  const m = readMeeting(parts.join(""));
  const ms = performance.now() - started;
  assert.ok(m.action_items.length > 1000, `${m.action_items.length} action items`);
  assert.deepEqual(m.attendees, ["Bo", "Ann"]);
  assert.ok(ms < 60_000, `took ${ms.toFixed(0)} ms`);
});

Deno.test("calendar words: due dates and full dates as written", () => {
  assert.equal(dueIn("リリースノートを作成する（6/28まで）")?.due, "6/28");
  assert.equal(dueIn("revisar os preços até sexta")?.due, "sexta");
  assert.equal(dueIn("ship it by end of sprint")?.due, "end of sprint");
  assert.equal(calendarDate("Protokoll vom 21.05.2024"), "2024-05-21");
  assert.equal(calendarDate("June 3, 2024"), "2024-06-03");
  assert.equal(calendarDate("2024-02-30"), null);
});

Deno.test("grounding: words that match without answering are not support", () => {
  const sources = [{
    n: 1,
    chunk_id: "c1",
    document_id: "d1",
    title: "Billing migration",
    path: "/memory/project/billing.md",
    text: "# Billing migration\n\nThe billing migration meeting is every Tuesday in room 4.",
  }];
  assert.deepEqual(supportingSentences("Who owns the billing migration?", sources), []);
  assert.match(groundedAnswerText("Who owns the billing migration?", sources), /^Not in memory: /);
  assert.equal(
    groundedAnswerText("When is the billing migration meeting?", sources),
    "The billing migration meeting is every Tuesday in room 4. [1]",
  );
  const owned = [{ ...sources[0], text: "Kenji owns the billing migration." }];
  assert.equal(
    groundedAnswerText("Who owns the billing migration?", owned),
    "Kenji owns the billing migration. [1]",
  );
});

Deno.test("bench:extract: every label is verbatim, each half has 30+ per kind, held-out meets its targets", async () => {
  const { runHalf, TARGETS } = await import("../../../bench/extract.ts");
  for (const half of ["dev", "heldout"]) {
    const { scores } = await runHalf(half);
    for (const kind of ["tasks", "decisions", "action_items"] as const) {
      assert.ok(scores[kind].labels >= 30, `${half} ${kind}: ${scores[kind].labels} labels`);
    }
    if (half !== "heldout") continue;
    for (const [kind, target] of Object.entries(TARGETS)) {
      const s = scores[kind as keyof typeof scores];
      const p = s.predicted ? s.matched / s.predicted : 1;
      const r = s.matched / s.labels;
      assert.ok(
        p >= target!.p && r >= target!.r,
        `held-out ${kind}: P ${p.toFixed(2)} R ${r.toFixed(2)}`,
      );
    }
  }
});
