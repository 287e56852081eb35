/**
 * @module The synthesis operations through a real provider stack: an OpenAI-compatible model on
 * the loopback LLM fixture, falling through to the rules when the model fails, and grounded
 * (strict) answers checked before they are sent.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../src/core/logger.ts";
import { ask } from "../../src/core/answering/ask.ts";
import { decisions } from "../../src/core/synthesis/decisions.ts";
import { extractMeeting } from "../../src/core/synthesis/meetings.ts";
import { DecisionsInput, MeetingInput } from "../../src/core/synthesis/synthesis_schemas.ts";
import { ModelStack } from "../../src/providers/stack.ts";
import { OpenAiProvider } from "../../src/providers/openai.ts";
import { type LlmServer, startLlmServer } from "../fixtures/llm_server.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";

function stack(server: LlmServer): ModelStack {
  const chat = new OpenAiProvider({
    name: "fake-openai",
    baseUrl: server.openaiBaseUrl,
    model: "gpt-test",
    apiKey: "sk-test",
    maxRetries: 0,
    retryBaseMs: 1,
  });
  return new ModelStack([chat], { logger: silentLogger });
}

/** The text the model was sent as the user's message of request `i`. */
function sent(server: LlmServer, i: number): { system: string; user: string } {
  const body = server.requests[i].body as { messages: { role: string; content: string }[] };
  return {
    system: body.messages.find((m) => m.role === "system")!.content,
    user: body.messages.find((m) => m.role === "user")!.content,
  };
}

const RETRIES = "# Eng sync\n\nRetries in the HTTP client were discussed at length.\n\n" +
  "Decision: retries use exponential backoff with full jitter, max 3 attempts.\n";

Deno.test("decisions: the model reads the passages; its quote is checked against the chunk", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: RETRIES, path: "/memory/project/sync.md" });
  llm.enqueue({
    text: JSON.stringify({
      decisions: [{
        statement: "Retries use exponential backoff with full jitter.",
        rationale: "avoids thundering herds",
        who: "Bob",
        when: "2024-04-08",
        source: 1,
        quote: "retries use exponential backoff with full jitter, max 3 attempts.",
      }, {
        statement: "An invented decision citing a passage that does not exist.",
        source: 9,
        quote: "nothing",
      }],
    }),
  });
  const r = await decisions(
    { service: s.service, model: stack(llm) },
    ADMIN,
    DecisionsInput.parse({ query: "retries" }),
  );
  assert.equal(r.provider, "fake-openai");
  assert.equal(r.decisions.length, 1);
  const [d] = r.decisions;
  assert.deepEqual([d.statement, d.rationale, d.who, d.when], [
    "Retries use exponential backoff with full jitter.",
    "avoids thundering herds",
    "Bob",
    "2024-04-08",
  ]);
  assert.equal(d.citation.path, "/memory/project/sync.md");
  assert.equal(
    d.citation.quote,
    "retries use exponential backoff with full jitter, max 3 attempts.",
  );
  const { system, user } = sent(llm, 0);
  assert.match(system, /Reply with one JSON object/);
  assert.match(user, /^Passages:\n\n\[1\] Eng sync \(\/memory\/project\/sync\.md\)\n/);
  assert.match(user, /Only decisions about: retries$/);
});

Deno.test("decisions: malformed model JSON falls through to the rules", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: RETRIES, path: "/memory/project/sync.md" });
  llm.enqueue({ text: "Sure! Here are the decisions: retries." });
  const r = await decisions(
    { service: s.service, model: stack(llm) },
    ADMIN,
    DecisionsInput.parse({ query: "retries" }),
  );
  assert.equal(r.provider, "extractive");
  assert.deepEqual(r.decisions.map((d) => d.statement), [
    "retries use exponential backoff with full jitter, max 3 attempts.",
  ]);
  assert.equal(llm.requests.length, 1);
});

Deno.test("meetings: the model's reading, validated; a text too long for it is read by rule", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  using s = await openService(dir.path);
  llm.enqueue({
    text: "```json\n" + JSON.stringify({
      title: "Platform sync",
      date: "2024-05-14",
      attendees: ["Maria", "Kenji"],
      decisions: ["Upgrade on Sunday."],
      action_items: [{ task: "Write the runbook", owner: "Kenji", due: "Wednesday" }, {
        task: "Announce it",
        owner: null,
      }],
      open_questions: [],
    }) + "\n```",
  });
  const notes = "# Platform sync\n\nMaria and Kenji met. Agreed: upgrade on Sunday.\n";
  const r = await extractMeeting(
    { service: s.service, model: stack(llm) },
    ADMIN,
    MeetingInput.parse({ content: notes }),
  );
  assert.equal(r.provider, "fake-openai");
  assert.deepEqual(r.action_items, [
    { task: "Write the runbook", owner: "Kenji", due: "Wednesday" },
    { task: "Announce it" },
  ]);
  assert.equal(sent(llm, 0).user, `Meeting notes:\n\n${notes}`);

  const long = `# Marathon\n\n${"[00:01] Ann: I'll update the ticket.\n".repeat(2000)}`;
  const ruled = await extractMeeting(
    { service: s.service, model: stack(llm) },
    ADMIN,
    MeetingInput.parse({ content: long }),
  );
  assert.equal(ruled.provider, "extractive");
  assert.equal(llm.requests.length, 1, "the long text never reached the model");
});

Deno.test("strict ask: the model's 'Not in memory' and uncited answers become not grounded", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: "# Billing migration\n\nThe billing migration meeting is every Tuesday in room 4.",
    path: "/memory/project/billing.md",
  });
  const model = stack(llm);
  const deltas: string[] = [];
  llm.enqueue({ text: "Not in memory." });
  const no = await ask({ service: s.service, model }, ADMIN, {
    query: "Who owns the billing migration?",
    top_k: 5,
    strict: true,
  }, { onDelta: (d) => void deltas.push(d) });
  assert.equal(no.grounded, false);
  assert.match(
    no.answer,
    /^Not in memory: the closest passages \(\/memory\/project\/billing\.md\) do not answer "Who owns the billing migration\?"\.$/,
  );
  assert.deepEqual(deltas, [no.answer]);
  assert.equal(no.retrieved.length, 1);
  assert.match(sent(llm, 0).system, /reply with exactly "Not in memory\." and nothing else/);

  llm.enqueue({ text: "Kenji owns it, probably." });
  const uncited = await ask({ service: s.service, model }, ADMIN, {
    query: "Who owns the billing migration?",
    top_k: 5,
    strict: true,
  });
  assert.equal(uncited.grounded, false);
  assert.match(uncited.answer, /^Not in memory/);
  assert.deepEqual(uncited.citations, []);

  llm.enqueue({ text: "The billing migration meeting is every Tuesday [1]." });
  const yes = await ask({ service: s.service, model }, ADMIN, {
    query: "When is the billing migration meeting?",
    top_k: 5,
    strict: true,
  });
  assert.equal(yes.grounded, true);
  assert.equal(yes.answer, "The billing migration meeting is every Tuesday [1].");
  assert.equal(yes.citations.length, 1);
});
