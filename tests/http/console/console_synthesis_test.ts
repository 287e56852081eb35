/**
 * The Synthesis page through the console API, in-process: open loops, decisions and the context
 * pack for a topic, each item linked to its source document; the topic filters the loops; a part
 * the token's tools list leaves out says so while the others still show; stored markup is inert.
 */
import assert from "node:assert/strict";
import type { SynthesisView } from "../../../src/http/console/synthesis/synthesis_actions.ts";
import { ADMIN } from "../../helpers.ts";
import { signedIn, startConsole } from "./_console.ts";

const DEPLOYS = [
  "# Deploys",
  "",
  "## Decisions",
  "- We decided to deploy on Tuesdays after the review meeting.",
  "",
  "## Tasks",
  "- [ ] write the deploy runbook",
  "- [x] move the staging database",
].join("\n");

const GARDEN = [
  "# Garden",
  "",
  "- [ ] buy tomato seeds <script>window.pwned=1</script>",
  "",
  "Should the basil go beside the tomatoes?",
].join("\n");

type Loops = { value: { items: { text: string; document_id: string }[]; filtered: boolean } };
type Decisions = {
  value: { decisions: { statement: string; citation: { document_id: string } }[] };
};
type Pack = { value: { sources: { document_id: string }[]; pack: string } };

Deno.test("console synthesis: open loops, decisions and the pack for a topic, each linked to its source", async () => {
  await using s = await startConsole();
  const deploys = await s.service.remember(ADMIN, { content: DEPLOYS, path: "/memory/deploys.md" });
  const garden = await s.service.remember(ADMIN, { content: GARDEN, path: "/memory/garden.md" });
  const c = await signedIn(s.url, "tok-read");

  const all = await c.json<SynthesisView>("/console/api/b/default/synthesis");
  const loops = (all.loops as Loops).value;
  assert.equal(loops.filtered, false);
  assert.deepEqual(loops.items.map((i) => i.text).sort(), [
    "Should the basil go beside the tomatoes?",
    "buy tomato seeds <script>window.pwned=1</script>",
    "write the deploy runbook",
  ]);
  const decisions = (all.decisions as Decisions).value.decisions;
  assert.equal(decisions.length, 1);
  assert.match(decisions[0].statement, /deploy on Tuesdays/);
  assert.equal(decisions[0].citation.document_id, deploys.id);
  assert.equal(all.pack, null, "no pack without a topic");

  const topic = await c.json<SynthesisView>("/console/api/b/default/synthesis?topic=deploy");
  assert.deepEqual((topic.loops as Loops).value.items.map((i) => i.text), [
    "write the deploy runbook",
  ]);
  const pack = (topic.pack as Pack).value;
  assert.deepEqual(pack.sources.map((x) => x.document_id), [deploys.id]);
  assert.match(pack.pack, /Tuesdays/);

  const page = await (await c.get("/console/b/default/synthesis?topic=deploy")).text();
  assert.match(page, /<h1>Synthesis: deploy<\/h1>/);
  // Each item links to its document, at the passage it quotes.
  assert.match(page, new RegExp(`href="/console/b/default/doc/${deploys.id}#:~:text=write`));
  assert.match(page, new RegExp(`href="/console/b/default/doc/${deploys.id}#:~:text=We`));
  assert.match(page, new RegExp(`<a href="/console/b/default/doc/${deploys.id}">Deploys</a>`));
  assert.match(page, /aria-current="page">Synthesis</);

  const plain = await (await c.get("/console/b/default/synthesis")).text();
  assert.match(plain, new RegExp(`/console/b/default/doc/${garden.id}#:~:text=buy`));
  assert.doesNotMatch(plain, /<script>window\.pwned/);
  assert.match(plain, /buy tomato seeds &lt;script&gt;window\.pwned=1&lt;\/script&gt;/);
  assert.match(plain, /Give a topic to pack/);
});

Deno.test("console synthesis: a part the tools list leaves out says so; the others still show", async () => {
  await using s = await startConsole();
  await s.service.remember(ADMIN, { content: DEPLOYS, path: "/memory/deploys.md" });
  s.tokens.set("tok-loops", {
    tokenId: "t8",
    clientId: "loops",
    tier: "read",
    brains: "*",
    tools: ["memory_open_loops"],
  });
  const c = await signedIn(s.url, "tok-loops");
  const v = await c.json<SynthesisView>("/console/api/b/default/synthesis?topic=deploy");
  assert.deepEqual(v.decisions, { off: "memory_decisions" });
  assert.deepEqual(v.pack, { off: "memory_pack" });
  assert.equal((v.loops as Loops).value.items.length, 1);
  const page = await (await c.get("/console/b/default/synthesis?topic=deploy")).text();
  assert.match(page, /this token's tools list leaves out memory_decisions/);
  assert.match(page, /this token's tools list leaves out memory_pack/);
  const other = await c.get("/console/b/nope/synthesis");
  assert.equal(other.status, 404);
});
