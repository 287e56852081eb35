/** @module Context packs: most relevant first, de-duplicated, headed by path, never over the token budget. */
import assert from "node:assert/strict";
import { pack } from "../../../src/core/synthesis/pack.ts";
import { PackInput } from "../../../src/core/synthesis/synthesis_schemas.ts";
import { loadTokenCounter } from "../../../src/core/text/token_count.ts";
import { EngramError } from "../../../src/core/errors.ts";
import { ADMIN, openService, tempDir } from "../../helpers.ts";

const args = (o: Record<string, unknown>) => PackInput.parse(o);

const BILLING = [
  "# Billing migration",
  "",
  "Moving invoices from the legacy Rails billing to the new ledger service.",
  "",
  "## Decisions",
  "- We decided to keep Stripe as the payment processor.",
  "- Going with daily reconciliation for phase 2.",
  "",
  "## Risks",
  `${"The ledger backfill may run long on the 2021 invoices. ".repeat(60)}`,
].join("\n");

Deno.test("pack: an empty brain gives an empty pack and says what to do", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const recent = await pack({ service: s.service }, ADMIN, args({}));
  assert.equal(recent.pack, "");
  assert.equal(recent.tokens, 0);
  assert.match(recent.note!, /holds no documents yet; store notes with memory_remember/);
  const query = await pack({ service: s.service }, ADMIN, args({ query: "billing" }));
  assert.match(query.note!, /nothing in brain "default" matches "billing"; try other words/);
});

Deno.test("pack: the most relevant first, headed by path, cited, never over the budget", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const billing = await s.service.remember(ADMIN, {
    content: BILLING,
    path: "/memory/project/billing.md",
  });
  await s.service.remember(ADMIN, {
    content: "# Lunch\n\nThe team lunch is on Fridays. Billing is not discussed.",
    path: "/memory/global/lunch.md",
  });
  const counter = await loadTokenCounter();
  const big = await pack(
    { service: s.service },
    ADMIN,
    args({ query: "billing migration stripe" }),
  );
  assert.equal(big.basis, "query");
  assert.ok(big.pack.startsWith('# Memory pack: "billing migration stripe" (brain default)\n'));
  assert.match(
    big.pack,
    /## \/memory\/project\/billing\.md › Billing migration › Decisions\n- We decided/,
  );
  assert.equal(big.sources[0].document_id, billing.id);
  assert.ok(big.sources[0].chunk_ids.length > 0);
  assert.equal(big.tokens, counter.count(big.pack));
  assert.equal(big.tokenizer, "cl100k_base");
  for (const budget of [200, 230, 300, 450, 700, 1000]) {
    const p = await pack(
      { service: s.service },
      ADMIN,
      args({ query: "billing ledger", budget_tokens: budget }),
    );
    assert.ok(p.tokens <= budget, `${p.tokens} tokens > budget ${budget}`);
    assert.equal(p.tokens, counter.count(p.pack));
    assert.ok(p.sources.length > 0);
  }
});

Deno.test("pack: a budget smaller than one excerpt cuts it at a word and says truncated", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, {
    content: `# Risks\n\n${"The ledger backfill may run long on old invoices. ".repeat(200)}`,
    path: "/memory/project/risks.md",
  });
  const p = await pack(
    { service: s.service },
    ADMIN,
    args({ query: "ledger backfill", budget_tokens: 200 }),
  );
  assert.equal(p.truncated, true);
  assert.ok(p.tokens <= 200 && p.tokens > 150, `${p.tokens}`);
  assert.match(p.pack, /invoices\. The …\n$|\w …\n$/);
});

Deno.test("pack: named documents and folders, in document order or by query; missing ones named", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  await s.service.remember(ADMIN, { content: BILLING, path: "/memory/project/billing.md" });
  await s.service.remember(ADMIN, {
    content: "# Plan\n\nShip it.",
    path: "/memory/project/plan.md",
  });
  const folder = await pack({ service: s.service }, ADMIN, args({ paths: ["/memory/project/"] }));
  assert.equal(folder.basis, "documents");
  assert.deepEqual(folder.sources.map((x) => x.path).sort(), [
    "/memory/project/billing.md",
    "/memory/project/plan.md",
  ]);
  assert.deepEqual(folder.sources[0].chunk_ids, []);
  const ordered = await pack(
    { service: s.service },
    ADMIN,
    args({
      paths: ["/memory/project/billing.md"],
      query: "risks backfill",
    }),
  );
  assert.match(
    ordered.pack,
    /^# Memory pack: selected documents \(brain default\)\n\n## \/memory\/project\/billing\.md › Billing migration › Risks\n/,
  );
  await assert.rejects(
    pack({ service: s.service }, ADMIN, args({ paths: ["/memory/project/none.md"] })),
    (e: unknown) =>
      e instanceof EngramError && e.code === "not_found" &&
      /no document at \/memory\/project\/none\.md in brain "default"; find paths with memory_search/
        .test(e.message),
  );
});

Deno.test("pack: with neither query nor paths, the most recently changed documents first", async () => {
  await using dir = await tempDir();
  // A clock the test moves: the two notes are stamped a minute apart, however fast they are written.
  let now = Date.parse("2026-03-01T09:00:00Z");
  using s = await openService(dir.path, { now: () => new Date(now) });
  await s.service.remember(ADMIN, { content: "# Old\n\nOld note.", path: "/memory/global/old.md" });
  now += 60_000;
  await s.service.remember(ADMIN, { content: "# New\n\nNew note.", path: "/memory/global/new.md" });
  const p = await pack({ service: s.service }, ADMIN, args({ scope: "global" }));
  assert.equal(p.basis, "recent");
  assert.deepEqual(p.sources.map((x) => x.path), [
    "/memory/global/new.md",
    "/memory/global/old.md",
  ]);
});

Deno.test("pack: the budget is validated with a message naming the range", () => {
  const r = PackInput.safeParse({ budget_tokens: 50 });
  assert.ok(!r.success);
  assert.match(r.error.issues[0].message, /budget_tokens must be at least 200/);
});
