import assert from "node:assert/strict";
import { consolidate } from "../../../src/core/sessions/consolidate.ts";
import { EngramError } from "../../../src/core/errors.ts";
import { keepFacts } from "../../../src/core/sessions/facts.ts";
import { ADMIN, openService, tempDir } from "../../helpers.ts";

const SETTINGS = { promoteAfterSessions: 2, pruneAfterDays: 30 };
const DAY = 86_400_000;

Deno.test("consolidate: prunes old episodes (keeping their line), retires stable notes of superseded facts", async () => {
  await using dir = await tempDir();
  using svc = await openService(dir.path);
  const { service } = svc;
  const brain = await service.brain(ADMIN);
  const now = new Date("2026-11-22T12:00:00Z");
  const old = new Date(now.getTime() - 45 * DAY).toISOString();
  await service.remember(ADMIN, {
    path: "/memory/agent/episodes/2026-10-08-old.md",
    content: "# Episode 2026-10-08: failure\n\nThe migration failed.",
    metadata: { kind: "episode", outcome: "failure" },
  }, { source: "reflect", createdAt: old, updatedAt: old });
  await service.remember(ADMIN, {
    path: "/memory/agent/episodes/2026-11-20-new.md",
    content: "# Episode 2026-11-20: success\n\nThe deploy worked.",
    metadata: { kind: "episode", outcome: "success" },
  }, { source: "reflect" });
  // A note of mine under the episodes folder without kind: episode is never pruned.
  await service.remember(ADMIN, {
    path: "/memory/agent/episodes/my-notes.md",
    content: "# Notes\n\nKeep me.",
  }, { createdAt: old, updatedAt: old });

  const fact = {
    text: "The team uses MySQL.",
    subject: "team",
    attribute: "uses for database",
    value: "MySQL",
  };
  for (const sessionId of ["s1", "s2"]) {
    await keepFacts(service, [fact], {
      caller: ADMIN,
      brain,
      scope: "project",
      sessionId,
      provider: "test",
    });
  }

  const dry = await consolidate({ service, locks: svc.storage.locks }, ADMIN, {
    dryRun: true,
    settings: SETTINGS,
    now,
  });
  assert.deepEqual(dry.pruned.map((p) => p.path), ["/memory/agent/episodes/2026-10-08-old.md"]);
  assert.equal(dry.promoted.length, 1);
  assert.equal(
    (await svc.storage.documents.findDocument(brain.id, {
      path: "/memory/agent/episodes/2026-10-08-old.md",
    }))!.deleted_at,
    null,
    "dry run prunes nothing",
  );

  const first = await consolidate({ service, locks: svc.storage.locks }, ADMIN, {
    dryRun: false,
    settings: SETTINGS,
    now,
  });
  assert.equal(first.pruned.length, 1);
  assert.match(first.pruned[0].reason!, /not updated since 2026-10-08/);
  const pruned = await svc.storage.documents.findDocument(brain.id, {
    path: "/memory/agent/episodes/2026-10-08-old.md",
  });
  assert.ok(pruned!.deleted_at, "soft-deleted");
  const list = await service.get(ADMIN, { path: "/memory/agent/episodes.md" });
  assert.match(list.content, /2026-10-08-old\.md/);
  assert.match(list.content, /2026-11-20-new\.md/);
  assert.equal(
    (await svc.storage.documents.findDocument(brain.id, {
      path: "/memory/agent/episodes/my-notes.md",
    }))!
      .deleted_at,
    null,
  );
  const projectFacts = await service.get(ADMIN, { path: "/memory/project/facts.md" });
  assert.match(projectFacts.content, /## team\n\n- \[The team uses MySQL\.\]/);
  const stablePath = first.promoted[0].path;

  // The pruned episode keeps its line in the next pass; the promoted fact is not promoted again.
  const second = await consolidate({ service, locks: svc.storage.locks }, ADMIN, {
    dryRun: false,
    settings: SETTINGS,
    now,
  });
  assert.equal(second.pruned.length, 0);
  assert.equal(second.promoted.length, 0);
  assert.match(
    (await service.get(ADMIN, { path: "/memory/agent/episodes.md" })).content,
    /2026-10-08-old\.md/,
  );

  // The fact is superseded: its stable note is retired.
  await keepFacts(service, [{ ...fact, text: "The team uses PostgreSQL.", value: "PostgreSQL" }], {
    caller: ADMIN,
    brain,
    scope: "project",
    sessionId: "s3",
    provider: "test",
  });
  const third = await consolidate({ service, locks: svc.storage.locks }, ADMIN, {
    dryRun: false,
    settings: SETTINGS,
    now,
  });
  assert.deepEqual(third.retired.map((r) => r.path), [stablePath]);
  assert.ok(
    (await svc.storage.documents.findDocument(brain.id, { path: stablePath }))!.deleted_at,
  );
  assert.doesNotMatch(
    (await service.get(ADMIN, { path: "/memory/project/facts.md" })).content,
    /MySQL/,
  );
});

Deno.test("consolidate: a second pass while one holds the lock is busy, naming the holder", async () => {
  await using dir = await tempDir();
  using svc = await openService(dir.path);
  const brain = await svc.service.brain(ADMIN);
  assert.equal(
    await svc.storage.locks.acquireLock(`consolidate:${brain.id}`, "nightly", 60_000),
    null,
  );
  await assert.rejects(
    consolidate({ service: svc.service, locks: svc.storage.locks }, ADMIN, {
      dryRun: false,
      settings: SETTINGS,
    }),
    (e: unknown) =>
      e instanceof EngramError && e.code === "busy" && e.retryable &&
      /consolidation of brain "default" is already running \(nightly, since /.test(e.message),
  );
  await svc.storage.locks.releaseLock(`consolidate:${brain.id}`, "nightly");
  const ok = await consolidate({ service: svc.service, locks: svc.storage.locks }, ADMIN, {
    dryRun: false,
    settings: SETTINGS,
  });
  assert.equal(ok.brain_slug, "default");
  // The pass released its lock.
  assert.equal(await svc.storage.locks.acquireLock(`consolidate:${brain.id}`, "next", 1000), null);
});
