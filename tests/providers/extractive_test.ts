import assert from "node:assert/strict";
import type {
  AnswerSource,
  ConversationMessage,
  FactCandidate,
  MemoryModel,
  Role,
} from "../../src/core/ports/language_model.ts";
import { EXTRACTIVE_PROVIDER, ExtractiveEngine } from "../../src/providers/extractive/engine.ts";

const engine = new ExtractiveEngine();

function source(n: number, text: string, title = `Doc ${n}`): AnswerSource {
  return {
    n,
    chunk_id: `c${n}`,
    document_id: `d${n}`,
    title,
    path: `/memory/global/${n}.md`,
    text,
  };
}

function said(role: Role, content: string): ConversationMessage {
  return { role, content };
}

async function facts(...contents: string[]): Promise<FactCandidate[]> {
  return (await engine.extractFacts(contents.map((c) => said("user", c)))).facts;
}

/** The one fact a statement yields. */
async function only(content: string): Promise<FactCandidate> {
  const found = await facts(content);
  assert.equal(found.length, 1, `${content} → ${JSON.stringify(found)}`);
  return found[0];
}

function key(f: FactCandidate): string {
  return `${f.subject}|${f.attribute}`.toLowerCase();
}

const SOURCES = [
  source(
    1,
    "# Stack\n\nWe use PostgreSQL 16 for the main database. The API is written in TypeScript.\n\n" +
      "```sql\nselect 1; -- the database\n```\nDeploys go out on Fridays.",
  ),
  source(2, "## Database\n\nOur database migrations live in db/migrations. See below.\n"),
  source(3, "We use PostgreSQL 16 for the main database!"),
];

Deno.test("extractive: names itself and has no embedder", () => {
  assert.equal(engine.name, "extractive");
  assert.equal(EXTRACTIVE_PROVIDER, "extractive");
  const model: MemoryModel = engine;
  assert.equal(model.embedder, undefined);
});

Deno.test("extractive answer: verbatim source sentences, each with its marker; deltas make the text", async () => {
  const deltas: string[] = [];
  const answer = await engine.answer({
    question: "Which database do we use?",
    sources: SOURCES,
    onDelta: (d) => {
      deltas.push(d);
    },
  });
  assert.equal(answer.provider, "extractive");
  assert.equal(deltas.join(""), answer.text);
  assert.ok(deltas.length >= 2 && deltas.length <= 4, JSON.stringify(deltas));
  for (const delta of deltas) {
    const m = /^ ?([\s\S]+) \[(\d+)\]$/.exec(delta);
    assert.ok(m, delta);
    const cited = SOURCES.find((s) => s.n === Number(m[2]));
    assert.ok(cited?.text.includes(m[1]), `${m[1]} not in source ${m[2]}`);
  }
  assert.equal(deltas[0], "We use PostgreSQL 16 for the main database. [1]");
  // Source 3 says the same as source 1: a near-duplicate is left out.
  assert.ok(!answer.text.includes("[3]"), answer.text);
  // Code fences and fragments too short to answer are never quoted.
  assert.ok(!answer.text.includes("select 1"), answer.text);
  assert.ok(!answer.text.includes("See below"), answer.text);
});

Deno.test("extractive answer: equal matches go to the higher-ranked (lower n) source first", async () => {
  const answer = await engine.answer({
    question: "alpha blue",
    sources: [source(2, "Alpha has the blue widget."), source(1, "Alpha has the blue gadget.")],
  });
  assert.equal(answer.text, "Alpha has the blue gadget. [1] Alpha has the blue widget. [2]");
});

/** A sentence about zebras whose other words are its own. */
function zebraSentence(i: number, words: number): string {
  return `Zebras ${Array.from({ length: words }, (_, w) => `w${i}x${w}`).join(" ")}.`;
}

Deno.test("extractive answer: at most four sentences and 1200 characters", async () => {
  const short = Array.from({ length: 12 }, (_, i) => zebraSentence(i, 6)).join(" ");
  const four = await engine.answer({ question: "zebras", sources: [source(1, short)] });
  assert.equal((four.text.match(/\[1\]/g) ?? []).length, 4);

  const long = Array.from({ length: 6 }, (_, i) => zebraSentence(i, 80)).join(" ");
  const capped = await engine.answer({ question: "zebras", sources: [source(1, long)] });
  assert.ok(capped.text.length <= 1200, String(capped.text.length));
  assert.ok((capped.text.match(/\[1\]/g) ?? []).length >= 2, capped.text);

  const overlong = zebraSentence(0, 400);
  const cut = await engine.answer({ question: "zebras", sources: [source(1, overlong)] });
  assert.ok(cut.text.length <= 1200, String(cut.text.length));
  const quoted = cut.text.replace(/ \[1\]$/, "");
  assert.ok(quoted.length > 1000 && overlong.startsWith(quoted), quoted);
});

Deno.test("extractive answer: nothing shared with the question is said honestly, uncited", async () => {
  for (const sources of [SOURCES, []]) {
    const deltas: string[] = [];
    const answer = await engine.answer({
      question: "What is the capital of Mongolia?",
      sources,
      onDelta: (d) => void deltas.push(d),
    });
    assert.equal(
      answer.text,
      'I found nothing in memory that answers "What is the capital of Mongolia?".',
    );
    assert.deepEqual(deltas, [answer.text]);
  }
});

Deno.test("extractive answer: each delta is awaited before the next", async () => {
  const events: string[] = [];
  await engine.answer({
    question: "database",
    sources: SOURCES,
    onDelta: async (d) => {
      events.push(`start ${d.trim().slice(0, 5)}`);
      await new Promise((r) => setTimeout(r, 5));
      events.push("end");
    },
  });
  assert.ok(events.length >= 4);
  events.forEach((e, i) => assert.equal(e === "end", i % 2 === 1, events.join(", ")));
});

Deno.test("extractive answer: an aborted signal stops it with the signal's reason", async () => {
  const before = new AbortController();
  const reason = new Error("stopped by the client");
  before.abort(reason);
  await assert.rejects(
    engine.answer({ question: "database", sources: SOURCES, signal: before.signal }),
    (e) => e === reason,
  );
  const during = new AbortController();
  const deltas: string[] = [];
  await assert.rejects(
    engine.answer({
      question: "database",
      sources: SOURCES,
      signal: during.signal,
      onDelta: (d) => {
        deltas.push(d);
        during.abort(reason);
      },
    }),
    (e) => e === reason,
  );
  assert.equal(deltas.length, 1);
});

Deno.test("extractive facts: a newer value for the same key contradicts the older one", async () => {
  const pairs = [
    ["I prefer tabs.", "I prefer spaces."],
    ["My name is Ada.", "my name is Grace"],
    ["I'm Ada.", "Call me Grace."],
    ["I live in Paris.", "I'm based in Berlin now."],
    ["I work at Initech.", "I work for Acme Corp."],
    ["I like YAML.", "I hate YAML."],
    ["We use PostgreSQL 16 for the database.", "We switched to MySQL."],
    ["We use Redis as a cache.", "We're using Memcached for caching."],
    ["Always squash commits.", "Never squash commits."],
    ["The launch is due on March 3.", "The launch is due by April 1."],
    ["Our main branch is called main.", "Our main branch is called trunk."],
  ];
  for (const [older, newer] of pairs) {
    const [a, b] = [await only(older), await only(newer)];
    assert.equal(key(a), key(b), `${older} / ${newer}`);
    assert.notEqual(a.value.toLowerCase(), b.value.toLowerCase(), `${older} / ${newer}`);
  }
});

Deno.test("extractive facts: unrelated statements do not share a key", async () => {
  const statements = [
    "I prefer tabs.",
    "I prefer dark mode.",
    "I like jazz.",
    "I like hiking.",
    "We use PostgreSQL.",
    "We use React.",
    "We use Linear for tickets.",
    "Always run the tests.",
    "Never push to main.",
    "My name is Ada.",
    "My email is ada@example.com.",
  ];
  const keys = await Promise.all(statements.map(async (s) => key(await only(s))));
  assert.equal(new Set(keys).size, statements.length, keys.join("\n"));
});

Deno.test("extractive facts: subjects, attributes, values and third-person texts", async () => {
  const cases: [string, Omit<FactCandidate, "text">, string][] = [
    ["I prefer tabs over spaces.", {
      subject: "user",
      attribute: "prefers indentation",
      value: "tabs",
    }, "The user prefers tabs over spaces."],
    ["We use PostgreSQL 16 for the database.", {
      subject: "team",
      attribute: "uses for database",
      value: "PostgreSQL 16",
    }, "The team uses PostgreSQL 16 for the database."],
    [
      "My name is Ada Lovelace.",
      { subject: "user", attribute: "name", value: "Ada Lovelace" },
      "The user's name is Ada Lovelace.",
    ],
    [
      "I'm a backend engineer.",
      { subject: "user", attribute: "role", value: "backend engineer" },
      "The user is a backend engineer.",
    ],
    ["I don't like cilantro.", {
      subject: "user",
      attribute: "opinion of cilantro",
      value: "dislikes",
    }, "The user doesn't like cilantro."],
    ["Our project is written in TypeScript.", {
      subject: "team",
      attribute: "uses for language",
      value: "TypeScript",
    }, "The project is written in TypeScript."],
    [
      "Our deadline is Friday.",
      { subject: "team", attribute: "due", value: "Friday" },
      "The team's deadline is Friday.",
    ],
    [
      "The report is due by May 3.",
      { subject: "report", attribute: "due", value: "May 3" },
      "The report is due by May 3.",
    ],
    [
      "Never push to main.",
      { subject: "user", attribute: "rule: push to main", value: "never" },
      "The user's rule: never push to main.",
    ],
    ["We always rebase before merging.", {
      subject: "team",
      attribute: "rule: rebase before merging",
      value: "always",
    }, "The team always rebases before merging."],
    ["Remember that the staging server restarts at 2am.", {
      subject: "note",
      attribute: "staging server restarts at 2am",
      value: "the staging server restarts at 2am",
    }, "The staging server restarts at 2am."],
    ["Please remember that my birthday is May 3.", {
      subject: "user",
      attribute: "birthday",
      value: "May 3",
    }, "The user's birthday is May 3."],
    ["The staging URL is https://staging.example.com.", {
      subject: "team",
      attribute: "staging url",
      value: "https://staging.example.com",
    }, "The staging URL is https://staging.example.com."],
  ];
  for (const [statement, expected, text] of cases) {
    assert.deepEqual(await only(statement), { text, ...expected }, statement);
  }
});

Deno.test("extractive facts: one sentence can hold several facts", async () => {
  const found = await facts("I'm Grace, a data engineer at Acme, and we use Deno.");
  assert.deepEqual(found.map((f) => [f.subject, f.attribute, f.value]), [
    ["user", "name", "Grace"],
    ["user", "role", "data engineer"],
    ["user", "works at", "Acme"],
    ["team", "uses for runtime", "Deno"],
  ]);
});

Deno.test("extractive facts: questions, hypotheticals, system and tool messages state nothing", async () => {
  const silent = [
    "Do I prefer tabs?",
    "Should we use PostgreSQL for the database?",
    "What if we switched to MySQL",
    "If I lived in Rome I would prefer espresso.",
    "Maybe we use Redis as a cache.",
    "I'd prefer spaces.",
    "I'm tired.",
    "The problem is that the tests fail.",
    "The build is failing.",
    "I don't live in Paris.",
  ];
  for (const s of silent) assert.deepEqual(await facts(s), [], s);
  const other = await engine.extractFacts([
    said("system", "My name is Bob. We use MySQL."),
    said("tool", "I prefer tabs. We use MySQL."),
  ]);
  assert.deepEqual(other.facts, []);
});

Deno.test("extractive facts: the assistant's first person is not the user's", async () => {
  const found = await engine.extractFacts([
    said(
      "assistant",
      "I prefer tabs. My name is Claude. The issue is the cache. We use Deno 2 as the runtime.",
    ),
  ]);
  assert.deepEqual(found.facts.map((f) => [f.subject, f.attribute, f.value]), [
    ["team", "uses for runtime", "Deno 2"],
  ]);
  assert.equal(found.provider, "extractive");
});

Deno.test("extractive facts: one call has no duplicates and keeps the latest value of a key", async () => {
  const found = await facts(
    "I prefer tabs.",
    "I like jazz. I prefer tabs.",
    "I like jazz.",
    "I prefer spaces.",
  );
  assert.deepEqual(found.map((f) => [f.attribute, f.value]), [
    ["opinion of jazz", "likes"],
    ["prefers indentation", "spaces"],
  ]);
});

Deno.test("extractive reflect: outcome from the closing messages", async () => {
  const ask = said("user", "The build fails with a type error in ask.ts, can you fix it?");
  const reply = said(
    "assistant",
    "The error came from a missing import. I added it; please try again.",
  );
  const outcome = async (...end: ConversationMessage[]) =>
    (await engine.reflect([ask, reply, ...end])).outcome;
  assert.equal(await outcome(said("user", "Thanks, that works!")), "success");
  assert.equal(await outcome(said("user", "Still failing with the same error.")), "failure");
  assert.equal(await outcome(said("user", "It doesn't work.")), "failure");
  assert.equal(await outcome(said("user", "I gave up on it.")), "failure");
  assert.equal(
    await outcome(said("user", "The build works now, but the tests are still failing.")),
    "partial",
  );
  assert.equal(await outcome(said("user", "Let me look at the logs tomorrow.")), "unknown");
  assert.equal(await outcome(said("user", "No errors any more, thanks.")), "success");
  assert.equal((await engine.reflect([said("user", "Fixed, thanks!")])).outcome, "unknown");
  const done = await engine.reflect([
    ask,
    said("assistant", "Done: fixed the import and the build passes."),
  ]);
  assert.equal(done.outcome, "success");
});

Deno.test("extractive reflect: summary, episode, retry feedback and lessons", async () => {
  const failed = await engine.reflect([
    said("system", "You are a helpful assistant."),
    said(
      "user",
      `Please migrate the billing tables to PostgreSQL. ${"Details follow. ".repeat(60)}`,
    ),
    said("assistant", "I wrote the migration in db/0042.sql. Run it with deno task migrate."),
    said(
      "user",
      "Still failing: the foreign key on invoices is rejected. Next time check the constraints first.",
    ),
    said("tool", "lesson: this tool output is not a lesson"),
  ]);
  assert.equal(failed.outcome, "failure");
  assert.equal(failed.provider, "extractive");
  assert.ok(failed.summary.length <= 600, String(failed.summary.length));
  assert.ok(
    failed.summary.includes("Please migrate the billing tables to PostgreSQL."),
    failed.summary,
  );
  assert.ok(failed.summary.includes("I wrote the migration in db/0042.sql."), failed.summary);
  assert.equal(failed.should_record_episode, true);
  assert.match(failed.retry_feedback ?? "", /foreign key on invoices is rejected/);
  assert.deepEqual(failed.lessons, ["Next time check the constraints first."]);

  const fine = await engine.reflect([
    said("user", "Rename the helper, please."),
    said("assistant", "Done, thanks."),
  ]);
  assert.equal(fine.outcome, "success");
  assert.equal(fine.retry_feedback, undefined);
  assert.equal(fine.should_record_episode, false);

  const lessons = await engine.reflect(
    Array.from(
      { length: 8 },
      (_, i) => said("user", `Lesson ${i}: we learned to pin version ${i}.`),
    ),
  );
  assert.equal(lessons.lessons.length, 5);
  assert.equal(lessons.lessons[0], "Lesson 0: we learned to pin version 0.");
});
