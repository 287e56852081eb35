/** @module `engram pack`, `loops`, `decisions`, `meeting` and `ask --strict` through the real CLI: text for people, `--json` for scripts, and their usage errors. */
import assert from "node:assert/strict";
import { LIMITS } from "../../src/core/limits.ts";
import { runEngram, tempDir } from "../helpers.ts";
import { assertFails, assertOk, runJson, writeText } from "./_util.ts";

const NOTE = [
  "# Billing migration",
  "",
  "## Decisions",
  "- We decided to keep Stripe as the payment processor.",
  "",
  "## Tasks",
  "- [ ] backfill invoice PDFs for 2021",
  "- [x] dual-read dashboard",
  "",
  "```md",
  "- [ ] a checkbox in a code block",
  "```",
].join("\n");

const MINUTES = [
  "# Platform sync — 14 May 2024",
  "",
  "Attendees: Maria, Kenji",
  "",
  "Agreed: the upgrade happens on Sunday 26 May.",
  "",
  "## Action items",
  "- [ ] Kenji: write the rollback runbook (due 22 May)",
  "",
  "## Open questions",
  "- Can read replicas lag a major version?",
].join("\n");

Deno.test("engram pack / loops / decisions: text for people, --json for scripts", async () => {
  await using dir = await tempDir();
  const stored = await runEngram(["remember", "--path", "/memory/project/billing.md", "-"], {
    dataDir: dir.path,
    stdin: NOTE,
  });
  assertOk(stored);

  const pack = await runEngram(["pack", "billing stripe", "--budget", "300"], {
    dataDir: dir.path,
  });
  assertOk(pack);
  assert.match(
    pack.stdout,
    /^# Memory pack: "billing stripe" \(brain default\)\n\n## \/memory\/project\/billing\.md › /,
  );
  assert.doesNotMatch(pack.stdout, /tokens,/, "the cost line is for terminals only");
  const packJson = await runJson<{ tokens: number; sources: { path: string }[] }>(
    ["pack", "--path", "/memory/project/billing.md", "--budget", "200", "--json"],
    { dataDir: dir.path },
  );
  assert.ok(packJson.tokens <= 200);
  assert.deepEqual(packJson.sources.map((s) => s.path), ["/memory/project/billing.md"]);
  // A path as engram get takes it: relative to the brain root, or a folder ending in /.
  for (const path of ["memory/project/billing.md", "memory/project/"]) {
    const relative = await runJson<{ sources: { path: string }[] }>(
      ["pack", "--path", path, "--budget", "200", "--json"],
      { dataDir: dir.path },
    );
    assert.deepEqual(relative.sources.map((s) => s.path), ["/memory/project/billing.md"], path);
  }
  assertFails(
    await runEngram(["pack", "x", "--budget", "50"], { dataDir: dir.path }),
    2,
    /^engram: invalid arguments for pack: --budget: budget_tokens must be at least 200/,
  );
  assertFails(
    await runEngram(["pack", "--budget", "many"], { dataDir: dir.path }),
    2,
    /--budget must be an integer, got "many"/,
  );

  const loops = await runEngram(["loops"], { dataDir: dir.path });
  assertOk(loops);
  assert.match(
    loops.stdout,
    /^task {2}backfill invoice PDFs for 2021 {2}.*\/memory\/project\/billing\.md:7/m,
  );
  assert.doesNotMatch(loops.stdout, /code block|dual-read/);
  const all = await runJson<{ items: { text: string; status: string }[] }>([
    "loops",
    "--all",
    "--json",
  ], {
    dataDir: dir.path,
  });
  assert.deepEqual(all.items.map((i) => [i.text, i.status]).sort(), [
    ["backfill invoice PDFs for 2021", "open"],
    ["dual-read dashboard", "closed"],
  ]);
  assertFails(
    await runEngram(["loops", "--since", "last week"], { dataDir: dir.path }),
    2,
    /since must be an RFC 3339 time, a date \(2024-05-01\) or an age such as 24h, 7d/,
  );
  // Shaped like a date, but no such day.
  assertFails(
    await runEngram(["loops", "--since", "2024-13-45"], { dataDir: dir.path }),
    2,
    'engram: since "2024-13-45" is not a valid time; give an RFC 3339 time, a date (2024-05-01) or an age (7d)\n',
  );
  // A bad value names the flag it came from, not the tool's field (`kinds.1`).
  assertFails(
    await runEngram(["loops", "--kind", "task", "--kind", "bug"], { dataDir: dir.path }),
    2,
    'engram: invalid arguments for loops: --kind: Invalid option: expected one of "task"|"question"|"commitment"\n',
  );

  const decisions = await runEngram(["decisions", "payment"], { dataDir: dir.path });
  assertOk(decisions);
  assert.match(
    decisions.stdout,
    /^1\. We decided to keep Stripe as the payment processor\.\n {3}\/memory\/project\/billing\.md/,
  );
  const none = await runEngram(["decisions", "kubernetes"], { dataDir: dir.path });
  assertOk(none);
  assert.match(none.stdout, /no decision about "kubernetes" found/);
});

Deno.test("engram meeting: a file, stdin or a stored document; --store; usage errors", async () => {
  await using dir = await tempDir();
  const file = await writeText(dir.path, "minutes.md", MINUTES);
  const text = await runEngram(["meeting", file], { dataDir: dir.path });
  assertOk(text);
  assert.match(
    text.stdout,
    /^Platform sync — 14 May 2024 \(2024-05-14\)\nattendees: Maria, Kenji\n/,
  );
  assert.match(
    text.stdout,
    /action items:\n {2}- Kenji: write the rollback runbook \(due 22 May\)\n/,
  );
  assert.match(text.stdout, /open questions:\n {2}- Can read replicas lag a major version\?/);

  const stored = await runJson<
    { stored: { path: string }; source: { path: string }; provider: string }
  >(
    ["meeting", "-", "--store", "--json"],
    { dataDir: dir.path, stdin: MINUTES },
  );
  assert.equal(stored.provider, "extractive");
  assert.equal(
    stored.stored.path,
    "/memory/project/meetings/2024-05-14-platform-sync-14-may-2024.md",
  );
  const again = await runJson<{ decisions: string[] }>(
    ["meeting", "--document", stored.source.path, "--json"],
    { dataDir: dir.path },
  );
  assert.deepEqual(again.decisions, ["the upgrade happens on Sunday 26 May."]);

  assertFails(
    await runEngram(["meeting"], { dataDir: dir.path }),
    2,
    /give a FILE, - for stdin, or --document ID/,
  );
  assertFails(
    await runEngram(["meeting", file, "--document", "/x.md"], { dataDir: dir.path }),
    2,
    /exactly one/,
  );
  assertFails(
    await runEngram(["meeting", "nope.md"], { dataDir: dir.path }),
    1,
    /file nope\.md does not exist .*; for a stored document use --document/,
  );
  assertFails(
    await runEngram(["meeting", "--document", "/memory/none.md"], { dataDir: dir.path }),
    1,
    /no document "\/memory\/none\.md" in brain "default"/,
  );
  assertFails(
    await runEngram(["meeting", "-"], { dataDir: dir.path, stdin: " \n" }),
    2,
    /stdin holds no text/,
  );
  await Deno.mkdir(`${dir.path}/notes`);
  assertFails(
    await runEngram(["meeting", "notes"], { dataDir: dir.path }),
    2,
    "engram: notes is a directory; give a file, or - for stdin\n",
  );
  // The commonest transcript shape: a title line, then "Name: text" turns.
  const standup = await runEngram(["meeting", "-"], {
    dataDir: dir.path,
    stdin: "Standup 2026-11-26\nAlice: I'll fix the login bug by Monday\nBob: I will ping legal\n",
  });
  assertOk(standup);
  assert.equal(
    standup.stdout,
    [
      "Standup 2026-11-26",
      "attendees: Alice, Bob",
      "",
      "decisions: none",
      "",
      "action items:",
      "  - Alice: I'll fix the login bug by Monday (due Monday)",
      "  - Bob: I will ping legal",
      "",
      "open questions: none",
      "",
    ].join("\n"),
  );
  // One byte over the limit (a sparse file: its size, not its blocks, is what counts).
  const big = `${dir.path}/big.md`;
  await Deno.writeTextFile(big, "");
  await Deno.truncate(big, LIMITS.ingestFileBytes + 1);
  assertFails(
    await runEngram(["meeting", "big.md"], { dataDir: dir.path }),
    1,
    `engram: file_too_large: big.md is ${
      LIMITS.ingestFileBytes + 1
    } bytes; a meeting file is at most ${LIMITS.ingestFileBytes} bytes (25 MiB) — split it\n`,
  );
});

Deno.test("engram ask --strict: Not in memory when the passages do not answer; grounded in --json", async () => {
  await using dir = await tempDir();
  assertOk(
    await runEngram(["remember", "--path", "/memory/project/billing.md", "-"], {
      dataDir: dir.path,
      stdin: NOTE,
    }),
  );
  // The words match the note, which does not say who owns the migration.
  const strict = await runJson<{ answer: string; grounded?: boolean; retrieved: unknown[] }>(
    ["ask", "Who owns the billing migration?", "--strict", "--json"],
    { dataDir: dir.path },
  );
  assert.match(strict.answer, /^Not in memory/);
  assert.equal(strict.grounded, false);
  assert.ok(strict.retrieved.length > 0, "the closest passages are listed");
  const text = await runEngram(["ask", "Who owns the billing migration?", "--strict"], {
    dataDir: dir.path,
  });
  assertOk(text);
  assert.match(text.stdout, /^Not in memory/);
  const answered = await runJson<{ answer: string; grounded?: boolean }>(
    ["ask", "Which payment processor do we keep?", "--strict", "--json"],
    { dataDir: dir.path },
  );
  assert.doesNotMatch(answered.answer, /^Not in memory/);
  assert.notEqual(answered.grounded, false);
});
