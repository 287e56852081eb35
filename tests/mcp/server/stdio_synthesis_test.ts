/**
 * @module The synthesis tools (issue 18) through a spawned `engram stdio` and the MCP SDK client,
 * connected as real clients connect (tools/list first), with no model configured: packs, open
 * loops, decisions, meetings, grounded answers, and the bad input a user can hand them.
 */
import assert from "node:assert/strict";
import { callErr, callOk, connectStdio, tempDir } from "../../helpers.ts";

const NOTES: Record<string, string> = {
  "/memory/project/billing.md": [
    "# Billing migration",
    "",
    "The billing migration meeting is every Tuesday in room 4.",
    "",
    "## Decisions",
    "- We decided to keep Stripe as the payment processor, because it handles SCA for us.",
    "- Going with daily reconciliation instead of real-time.",
    "",
    "## Tasks",
    "- [ ] backfill invoice PDFs for 2021",
    "- [x] dual-read comparison dashboard",
    "",
    "The syntax `- [ ] item` is just markdown.",
    "",
    "```md",
    "- [ ] a checkbox in a code block",
    "```",
    "",
    "Who signs off the cutover?",
  ].join("\n"),
  "/memory/project/protokoll.md": [
    "# Architekturrunde 21.05.2024",
    "",
    "Teilnehmer: Jonas, Anna",
    "",
    "**Beschluss:** Wir bleiben bei Kafka, wechseln aber auf den gemanagten Dienst.",
    "",
    "## Aufgaben",
    "- Jonas: Kostenvergleich erstellen bis Ende Mai",
  ].join("\n"),
};

interface Pack {
  pack: string;
  sources: { path: string; chunk_ids: string[] }[];
  tokens: number;
  truncated: boolean;
  note?: string;
}
interface Loops {
  items: { kind: string; text: string; path: string; line: number; owner?: string; due?: string }[];
  open_counts: Record<string, number>;
  note?: string;
}
interface Decisions {
  decisions: {
    statement: string;
    rationale?: string;
    citation: { path: string; chunk_id: string; quote: string };
  }[];
  note?: string;
}
interface Meeting {
  title: string;
  attendees: string[];
  decisions: string[];
  action_items: { task: string; owner?: string; due?: string }[];
  open_questions: string[];
  source?: { path: string; document_id: string };
  stored?: { path: string; document_id: string };
}

Deno.test("stdio synthesis: pack, loops, decisions, meetings and strict answers over a fixture brain", async (t) => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path, { args: ["--tier", "write"] });
  const { tools } = await s.client.listTools();
  const byName = new Map(tools.map((x) => [x.name, x]));
  for (const name of ["memory_pack", "memory_open_loops", "memory_decisions"]) {
    assert.equal(byName.get(name)?.annotations?.readOnlyHint, true, name);
  }
  assert.equal(byName.get("memory_meeting_extract")?.annotations?.readOnlyHint, false);
  for (const [path, content] of Object.entries(NOTES)) {
    await callOk(s.client, "memory_remember", { path, content });
  }

  await t.step("memory_pack: cited excerpts under their paths, within the budget", async () => {
    const p = await callOk<Pack>(s.client, "memory_pack", {
      query: "billing migration stripe",
      budget_tokens: 1000,
    });
    assert.match(
      p.pack,
      /## \/memory\/project\/billing\.md › Billing migration › Decisions\n- We decided to keep Stripe/,
    );
    assert.ok(p.tokens <= 1000 && p.tokens > 0);
    assert.equal(p.sources[0].path, "/memory/project/billing.md");
    const small = await callOk<Pack>(s.client, "memory_pack", {
      query: "billing",
      budget_tokens: 200,
    });
    assert.ok(small.tokens <= 200, `${small.tokens}`);
    const bad = await callErr(s.client, "memory_pack", { query: "billing", budget_tokens: 150 });
    assert.equal(bad.code, "invalid_argument");
    assert.match(bad.message, /budget_tokens must be at least 200/);
  });

  await t.step("memory_open_loops: tasks outside code, questions, non-English items", async () => {
    const l = await callOk<Loops>(s.client, "memory_open_loops", {});
    assert.deepEqual(l.items.map((i) => [i.kind, i.text]).sort(), [
      ["question", "Who signs off the cutover?"],
      ["task", "Jonas: Kostenvergleich erstellen bis Ende Mai"],
      ["task", "backfill invoice PDFs for 2021"],
    ]);
    const jonas = l.items.find((i) => i.text.startsWith("Jonas"))!;
    assert.deepEqual([jonas.owner, jonas.due, jonas.path, jonas.line], [
      "Jonas",
      "Ende Mai",
      "/memory/project/protokoll.md",
      8,
    ]);
  });

  await t.step("memory_decisions: cited, with a rationale; German too", async () => {
    const all = await callOk<Decisions>(s.client, "memory_decisions", {});
    assert.deepEqual(all.decisions.map((d) => d.statement).sort(), [
      "Going with daily reconciliation instead of real-time.",
      "We decided to keep Stripe as the payment processor",
      "Wir bleiben bei Kafka, wechseln aber auf den gemanagten Dienst.",
    ]);
    const stripe = await callOk<Decisions>(s.client, "memory_decisions", {
      query: "payment processor",
    });
    assert.equal(stripe.decisions.length, 1);
    assert.equal(stripe.decisions[0].rationale, "it handles SCA for us");
    assert.ok(stripe.decisions[0].citation.chunk_id.length > 0);
    assert.match(stripe.decisions[0].citation.quote, /^We decided to keep Stripe/);
  });

  await t.step("strict memory_ask: matching words that do not answer → Not in memory", async () => {
    const loose = await callOk<{ answer: string; grounded?: boolean }>(s.client, "memory_ask", {
      query: "Who owns the billing migration?",
    });
    assert.equal(loose.grounded, undefined);
    assert.doesNotMatch(loose.answer, /^Not in memory/);
    const strict = await callOk<
      { answer: string; grounded: boolean; retrieved: { document_id: string }[] }
    >(
      s.client,
      "memory_ask",
      { query: "Who owns the billing migration?", strict: true },
    );
    assert.match(strict.answer, /^Not in memory/);
    assert.equal(strict.grounded, false);
    assert.ok(strict.retrieved.length > 0, "the closest sources are listed");
    const answered = await callOk<{ answer: string; grounded: boolean }>(s.client, "memory_ask", {
      query: "When is the billing migration meeting?",
      strict: true,
    });
    assert.equal(answered.grounded, true);
    assert.equal(answered.answer, "The billing migration meeting is every Tuesday in room 4. [1]");
  });

  await t.step("memory_meeting_extract: store writes a note linked to its source", async () => {
    const m = await callOk<Meeting>(s.client, "memory_meeting_extract", {
      content:
        "# Retro 2024-06-20\n\nPresent: Lena, Omar\n\nWe agreed to try a review rotation.\n\n" +
        "## Action items\n- AI: @omar — move the handbook into the wiki by end of sprint\n",
      store: true,
    });
    assert.deepEqual(m.attendees, ["Lena", "Omar"]);
    assert.deepEqual(m.action_items, [{
      task: "move the handbook into the wiki",
      owner: "omar",
      due: "end of sprint",
    }]);
    assert.equal(m.stored?.path, "/memory/project/meetings/2024-06-20-retro.md");
    assert.equal(m.source?.path, "/transcripts/meetings/2024-06-20-retro.md");
    const note = await callOk<{ content: string }>(s.client, "memory_get", {
      path: m.stored!.path,
    });
    assert.match(
      note.content,
      /Source: \[\[transcripts\/meetings\/2024-06-20-retro\]\]/,
    );
    assert.match(
      note.content,
      /- \[ \] move the handbook into the wiki — due end of sprint \(owner: omar\)/,
    );
    const links = await callOk<{ items: { path: string }[] }>(s.client, "memory_backlinks", {
      path: m.source!.path,
    });
    assert.deepEqual(links.items.map((x) => x.path), [m.stored!.path]);
    // The stored action item is an open loop now.
    const l = await callOk<Loops>(s.client, "memory_open_loops", { kinds: ["task"] });
    const stored = l.items.find((i) => i.path === m.stored!.path);
    assert.deepEqual([stored?.text, stored?.owner, stored?.due], [
      "move the handbook into the wiki — due end of sprint (owner: omar)",
      "omar",
      "end of sprint",
    ]);
  });

  await t.step(
    "memory_meeting_extract: a 5 MB transcript; over the limit → a fix in the message",
    async () => {
      const turn =
        "[00:01] Ann: We walked the backlog again and nothing moved. I'll update the board.\n";
      const big = `# Marathon\n\n${turn.repeat(Math.floor(4_900_000 / turn.length))}`;
      const m = await callOk<Meeting>(s.client, "memory_meeting_extract", { content: big });
      assert.equal(m.title, "Marathon");
      assert.deepEqual(m.action_items, [{ task: "I'll update the board.", owner: "Ann" }]);
      const over = await callErr(s.client, "memory_meeting_extract", {
        content: "x".repeat(5_000_001),
      });
      assert.equal(over.code, "invalid_argument");
      assert.match(
        over.message,
        /store the transcript first \(memory_ingest_file takes up to 25 MiB\) and pass its path as document/,
      );
      const local = await callErr(s.client, "memory_meeting_extract", {
        document: "notes/meeting.txt",
      });
      assert.equal(local.code, "not_found");
      assert.match(
        local.message,
        /not a local file — pass the text as content, or ingest the file first/,
      );
    },
  );
});

Deno.test("stdio synthesis: an empty brain at read tier answers with what to do", async () => {
  await using dir = await tempDir();
  await using s = await connectStdio(dir.path);
  const p = await callOk<Pack>(s.client, "memory_pack", {});
  assert.equal(p.pack, "");
  assert.match(p.note!, /holds no documents yet; store notes with memory_remember/);
  const l = await callOk<Loops>(s.client, "memory_open_loops", { since: "7d" });
  assert.deepEqual(l.items, []);
  assert.match(l.note!, /changed since .*; widen since/);
  const d = await callOk<Decisions>(s.client, "memory_decisions", { query: "retries" });
  assert.match(d.note!, /no decision about "retries" found/);
  const a = await callOk<{ answer: string; grounded: boolean }>(s.client, "memory_ask", {
    query: "What did we decide about retries?",
    strict: true,
  });
  assert.match(a.answer, /^Not in memory: nothing in brain "default" matches that\.$/);
  assert.equal(a.grounded, false);
  const m = await callOk<Meeting>(s.client, "memory_meeting_extract", {
    content:
      "Réunion produit\n\nDécision : on part sur Astro.\n\nÀ faire :\n- [ ] Claire : relancer l'agence (d'ici vendredi)\n",
  });
  assert.deepEqual(m.decisions, ["on part sur Astro."]);
  assert.deepEqual(m.action_items, [{
    task: "relancer l'agence",
    owner: "Claire",
    due: "vendredi",
  }]);
  const forbidden = await callErr(s.client, "memory_meeting_extract", {
    content: "# x\n\nAgreed: y.",
    store: true,
  });
  assert.equal(forbidden.code, "forbidden");
  assert.match(
    forbidden.message,
    /needs tier write; this session runs at tier read \(start with --tier write/,
  );
  const blank = await callErr(s.client, "memory_meeting_extract", { content: "   \n " });
  assert.equal(blank.code, "invalid_argument");
  assert.match(blank.message, /content holds only blank space; give the notes or transcript text/);
});
