import assert from "node:assert/strict";
import { runEngram, tempDir } from "../helpers.ts";
import { runJson } from "./_util.ts";
import { openSqliteStorage } from "../../src/storage/sqlite/sqlite_storage.ts";
import { startLlmServer } from "../fixtures/llm_server.ts";

async function remember(dataDir: string, path: string, content: string): Promise<void> {
  const r = await runEngram(["remember", "--path", path, "-"], { dataDir, stdin: content });
  assert.equal(r.code, 0, r.stderr);
}

Deno.test("engram ask: streams an extractive answer with its sources; --json gives the record", async () => {
  await using dir = await tempDir();
  await remember(
    dir.path,
    "/memory/project/deploy.md",
    "# Deploying\n\nProduction deploys run every Tuesday at 10:00 UTC.\n",
  );
  const text = await runEngram(["ask", "When do production deploys run?"], { dataDir: dir.path });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /Production deploys run every Tuesday at 10:00 UTC\. \[1\]/);
  // Sources are named by title and path (ids stay in --json).
  assert.ok(
    text.stdout.includes(
      '\n[1] Deploying — /memory/project/deploy.md\n    "Production deploys run',
    ),
    text.stdout,
  );
  assert.doesNotMatch(text.stdout, /doc_/);

  const json = await runEngram(["ask", "When do production deploys run?", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(json.code, 0, json.stderr);
  const out = JSON.parse(json.stdout);
  assert.deepEqual(Object.keys(out).sort(), [
    "answer",
    "brain_id",
    "citations",
    "provider",
    "retrieved",
  ]);
  assert.equal(out.provider, "extractive");
  assert.equal(out.citations[0].type, "citation");

  const bad = await runEngram(["ask", "x".repeat(8193)], { dataDir: dir.path });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /query/);
  const noBrain = await runEngram(["ask", "x", "--brain", "nope"], { dataDir: dir.path });
  assert.equal(noBrain.code, 1);
  assert.match(noBrain.stderr, /brain "nope"/);
});

Deno.test("engram consolidate: usage, report, and exit 75 while another pass holds the lock", async () => {
  await using dir = await tempDir();
  // Neither flag: the default brain, like every other command.
  const plain = await runEngram(["consolidate", "--json"], { dataDir: dir.path });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(JSON.parse(plain.stdout).brain_slug, "default");
  const both = await runEngram(["consolidate", "--all", "--brain", "default"], {
    dataDir: dir.path,
  });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /give --brain SLUG or --all, not both/);

  const ok = await runEngram(["consolidate", "--brain", "default", "--json"], {
    dataDir: dir.path,
  });
  assert.equal(ok.code, 0, ok.stderr);
  const report = JSON.parse(ok.stdout);
  assert.equal(report.brain_slug, "default");
  assert.equal(report.dry_run, false);
  for (const k of ["summaries", "promoted", "retired", "pruned"]) {
    assert.ok(Array.isArray(report[k]));
  }

  const all = await runEngram(["consolidate", "--all"], { dataDir: dir.path });
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stdout, /Consolidation of brain "default"/);

  // Another pass (here: this test) holds the brain's lock.
  const storage = openSqliteStorage(`${dir.path}/engram.db`);
  try {
    const brain = (await storage.brains.findBrain("default"))!;
    assert.equal(
      await storage.locks.acquireLock(`consolidate:${brain.id}`, "cron-1", 60_000),
      null,
    );
    const busy = await runEngram(["consolidate", "--brain", "default"], { dataDir: dir.path });
    assert.equal(busy.code, 75);
    assert.match(busy.stderr, /consolidation of brain "default" is already running \(cron-1/);
    const busyAll = await runEngram(["consolidate", "--all", "--json"], { dataDir: dir.path });
    assert.equal(busyAll.code, 75);
    await storage.locks.releaseLock(`consolidate:${brain.id}`, "cron-1");
    const after = await runEngram(["consolidate", "--brain", "default"], { dataDir: dir.path });
    assert.equal(after.code, 0, after.stderr);
  } finally {
    storage.close();
  }
});

Deno.test("engram ask with an OpenAI-compatible provider: the CLI keeps network access and streams", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  const config = `${dir.path}/engram.yaml`;
  await Deno.writeTextFile(
    config,
    `providers:\n  - type: openai\n    base_url: ${llm.openaiBaseUrl}\n    model: m\n    max_retries: 0\n`,
  );
  await remember(dir.path, "/memory/project/deploy.md", "# Deploying\n\nDeploys run on Tuesday.\n");
  llm.enqueue({ text: "On Tuesday [1].", chunks: ["On ", "Tuesday [1]."] });
  const r = await runEngram(["ask", "When do deploys run?", "--config", config], {
    dataDir: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(
    r.stdout.startsWith(
      'On Tuesday [1].\n\n[1] Deploying — /memory/project/deploy.md\n    "Deploys run on Tuesday."',
    ),
    r.stdout,
  );
  assert.equal(llm.requests.filter((q) => q.api !== "embeddings").length, 1);
});

Deno.test("engram ask: a source is listed under the number the answer cites it by", async () => {
  await using dir = await tempDir();
  await using llm = await startLlmServer();
  const config = `${dir.path}/engram.yaml`;
  await Deno.writeTextFile(
    config,
    `providers:\n  - type: openai\n    base_url: ${llm.openaiBaseUrl}\n    model: m\n    max_retries: 0\n`,
  );
  const names = new Map<string, string>();
  for (
    const [path, text] of [
      ["/memory/a.md", "# Alpha deploys\n\nDeploys run on Tuesday.\n"],
      ["/memory/b.md", "# Beta deploys\n\nDeploys run on Friday too.\n"],
    ]
  ) {
    const doc = await runJson<{ id: string; title: string }>(
      ["remember", "--path", path, "-", "--json"],
      { dataDir: dir.path, stdin: text },
    );
    names.set(doc.id, `${doc.title} — ${path}`);
  }
  const answer = "On Friday too [2].";
  llm.enqueue({ text: answer });
  const result = await runJson<{
    retrieved: { document_id: string }[];
    citations: { document_id: string }[];
  }>(["ask", "When do deploys run?", "--config", config, "--json"], { dataDir: dir.path });
  assert.equal(result.citations[0].document_id, result.retrieved[1].document_id, "ids in --json");
  llm.enqueue({ text: answer });
  const r = await runEngram(["ask", "When do deploys run?", "--config", config], {
    dataDir: dir.path,
  });
  assert.equal(r.code, 0, r.stderr);
  const second = names.get(result.retrieved[1].document_id)!;
  assert.ok(r.stdout.includes(`\n[2] ${second}\n`), r.stdout);
  assert.doesNotMatch(r.stdout, /\n\[1\] /, "only source 2 is cited");
});
