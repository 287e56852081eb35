import assert from "node:assert/strict";
import { EngramError } from "../../src/core/errors.ts";
import type { MemoryService } from "../../src/core/memory_service.ts";
import {
  INGEST_FILE_JOB,
  ingestFile,
  type IngestFileJobPayload,
  runIngestFileJob,
} from "../../src/ingest/ingest_file.ts";
import { ADMIN, openService, tempDir } from "../helpers.ts";
import { copyFixture, minimalPdf, sha256Hex as sha256 } from "../fixtures/ingest/fixtures.ts";
import { queuedBigFile } from "./_big_file.ts";

/** A data dir with an open service and a `vault/` root folder inside it. */
async function setup() {
  const dir = await tempDir();
  const base = await Deno.realPath(dir.path);
  const root = `${base}/vault`;
  await Deno.mkdir(root);
  const svc = await openService(base);
  return {
    ...svc,
    base,
    root,
    opts: { roots: [root], cwd: base },
    async [Symbol.asyncDispose]() {
      svc.storage.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

async function documentCount(service: MemoryService): Promise<number> {
  return (await service.stats(ADMIN, {})).documents;
}

async function rejects(fn: () => Promise<unknown>, code: string, message: RegExp | string) {
  await assert.rejects(fn, (err: unknown) => {
    assert.ok(err instanceof EngramError, `expected an EngramError, got ${err}`);
    assert.equal(err.code, code, err.message);
    if (typeof message === "string") assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

const NOTE = "---\ntitle: Garden log\ntags: [garden, spring]\nbed: north\n---\n" +
  "# Tomatoes\n\nPlanted San Marzano seedlings in the north bed.\n";

Deno.test("ingestFile stores markdown at /ingest/<root>/<relative path> with front-matter title, tags and metadata", async () => {
  await using s = await setup();
  await Deno.mkdir(`${s.root}/2024`);
  const file = `${s.root}/2024/garden.md`;
  await Deno.writeTextFile(file, NOTE);
  const r = await ingestFile(s.service, ADMIN, { path: file, ...s.opts });
  assert.deepEqual(Object.keys(r).sort(), [
    "chunk_count",
    "document_id",
    "duration_ms",
    "embedded_count",
    "hash",
    "path",
    "reused",
    "status",
  ]);
  assert.equal(r.status, "completed");
  assert.equal(r.path, "/ingest/vault/2024/garden.md");
  assert.equal(r.hash, await sha256(await Deno.readFile(file)));
  assert.ok(r.chunk_count > 0);
  assert.equal(r.embedded_count, 0);
  assert.ok(Number.isInteger(r.duration_ms) && r.duration_ms >= 0);
  assert.equal(r.reused, false);
  assert.match(r.document_id, /^doc_/);

  const doc = await s.service.get(ADMIN, { path: r.path });
  assert.equal(doc.id, r.document_id);
  assert.equal(doc.title, "Garden log");
  assert.equal(doc.source, "ingest");
  assert.equal(doc.content_type, "text/markdown");
  assert.equal(doc.content, "# Tomatoes\n\nPlanted San Marzano seedlings in the north bed.\n");
  assert.deepEqual(doc.metadata, {
    bed: "north",
    source_format: "markdown",
    source_file: file,
    source_hash: r.hash,
    tags: "garden,spring",
  });
});

Deno.test("ingestFile: an unchanged file is reused with no new version; a changed one makes version 2", async () => {
  await using s = await setup();
  const file = `${s.root}/garden.md`;
  await Deno.writeTextFile(file, NOTE);
  const first = await ingestFile(s.service, ADMIN, { path: file, ...s.opts });
  const again = await ingestFile(s.service, ADMIN, { path: "vault/garden.md", ...s.opts });
  assert.equal(again.reused, true);
  assert.equal(again.status, "completed");
  assert.equal(again.document_id, first.document_id);
  assert.equal(again.hash, first.hash);
  assert.equal(again.chunk_count, first.chunk_count);
  assert.equal((await s.service.get(ADMIN, { path: first.path })).version, 1);

  await Deno.writeTextFile(file, NOTE + "\nAdded basil.\n");
  const changed = await ingestFile(s.service, ADMIN, { path: file, ...s.opts });
  assert.equal(changed.reused, false);
  assert.equal(changed.document_id, first.document_id);
  assert.notEqual(changed.hash, first.hash);
  const doc = await s.service.get(ADMIN, { path: first.path });
  assert.equal(doc.version, 2);
  assert.match(doc.content, /Added basil/);
  assert.equal((await s.service.timeline(ADMIN, { limit: 20 })).items.length, 2);
});

Deno.test("ingestFile: text, pdf and json transcripts are stored searchable", async () => {
  await using s = await setup();
  await Deno.writeTextFile(`${s.root}/todo.txt`, "Renew the passport before the kayak trip.\n");
  await Deno.writeFile(`${s.root}/census.pdf`, minimalPdf(["Quarterly zebrafish census"]));
  await copyFixture("chat_array.json", s.root, "hike.json");
  const txt = await ingestFile(s.service, ADMIN, { path: `${s.root}/todo.txt`, ...s.opts });
  const pdf = await ingestFile(s.service, ADMIN, { path: `${s.root}/census.pdf`, ...s.opts });
  const json = await ingestFile(s.service, ADMIN, { path: `${s.root}/hike.json`, ...s.opts });
  assert.equal((await s.service.get(ADMIN, { path: txt.path })).content_type, "text/plain");
  assert.equal((await s.service.get(ADMIN, { path: pdf.path })).metadata.source_format, "pdf");
  const chat = await s.service.get(ADMIN, { path: json.path });
  assert.equal(chat.title, "Transcript: hike.json");
  assert.match(chat.content, /^\*\*user:\*\* Which trail did we pick for the Saturday hike\?$/m);
  for (
    const [query, path] of [["passport", txt.path], ["zebrafish", pdf.path], [
      "crampons",
      json.path,
    ]]
  ) {
    const hits = (await s.service.search(ADMIN, {
      query,
      top_k: 5,
      scope: "all",
      sort: "relevance",
    })).hits;
    assert.deepEqual(hits.map((h) => h.path), [path], query);
  }
});

Deno.test("ingestFile: `as` overrides the extension", async () => {
  await using s = await setup();
  await Deno.writeTextFile(`${s.root}/notes.weird`, "# not a heading here\n");
  await rejects(
    () => ingestFile(s.service, ADMIN, { path: `${s.root}/notes.weird`, ...s.opts }),
    "invalid_argument",
    `cannot tell the format of ${s.root}/notes.weird from its extension; pass as: markdown, text, pdf or json`,
  );
  const r = await ingestFile(s.service, ADMIN, {
    path: `${s.root}/notes.weird`,
    as: "text",
    ...s.opts,
  });
  const doc = await s.service.get(ADMIN, { path: r.path });
  assert.equal(doc.content_type, "text/plain");
  assert.equal(doc.metadata.source_format, "text");
});

Deno.test("ingestFile: a file that cannot be read or extracted leaves nothing stored", async () => {
  await using s = await setup();
  await Deno.writeFile(`${s.root}/photo.md`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
  await Deno.writeTextFile(`${s.root}/broken.json`, '{"messages": [');
  await copyFixture("corrupt.pdf", s.root);
  const cases: [string, string, RegExp][] = [
    ["photo.md", "invalid_argument", /photo\.md looks binary/],
    ["broken.json", "invalid_argument", /broken\.json is not valid JSON/],
    ["corrupt.pdf", "invalid_argument", /corrupt\.pdf is not a readable PDF/],
    ["missing.md", "not_found", /does not exist/],
  ];
  for (const [name, code, message] of cases) {
    await rejects(
      () => ingestFile(s.service, ADMIN, { path: `${s.root}/${name}`, ...s.opts }),
      code,
      message,
    );
  }
  assert.equal(await documentCount(s.service), 0);
  assert.equal((await s.service.timeline(ADMIN, { limit: 20 })).items.length, 0);
});

Deno.test("ingestFile with roots: null (CLI) reads anywhere and stores at docPath or /ingest/<name>", async () => {
  await using s = await setup();
  const file = `${s.base}/loose.md`;
  await Deno.writeTextFile(file, "# Loose\n\nNot under any root.\n");
  const cli = { roots: null, cwd: s.base };
  const plain = await ingestFile(s.service, ADMIN, { path: file, ...cli });
  assert.equal(plain.path, "/ingest/loose.md");
  const placed = await ingestFile(s.service, ADMIN, {
    path: file,
    ...cli,
    docPath: "/ingest/folder/loose.md",
  });
  assert.equal(placed.path, "/ingest/folder/loose.md");
  assert.notEqual(placed.document_id, plain.document_id);
});

Deno.test("ingestFile queues a file over queueBytes, and the job stores it under the promised id", async () => {
  await using s = await setup();
  const file = `${s.root}/long.md`;
  await Deno.writeTextFile(file, "# Long\n\n" + "The quokka census continues. ".repeat(100));
  const bytes = await Deno.readFile(file);
  const queued = await ingestFile(s.service, ADMIN, {
    path: file,
    ...s.opts,
    queue: { bytes: 1000, jobs: s.storage.jobs },
  });
  assert.equal(queued.status, "queued");
  assert.match(queued.job_id!, /^job_/);
  assert.equal(queued.path, "/ingest/vault/long.md");
  assert.equal(queued.hash, await sha256(bytes));
  assert.equal(queued.chunk_count, 0);
  assert.equal(queued.embedded_count, 0);
  assert.equal(queued.reused, false);
  assert.equal(await documentCount(s.service), 0, "nothing is stored before the job runs");

  const job = (await s.storage.jobs.getJob(queued.job_id!))!;
  assert.equal(job.kind, INGEST_FILE_JOB);
  assert.equal(job.status, "queued");
  const payload = job.payload as unknown as IngestFileJobPayload;
  assert.deepEqual(payload, {
    real_path: file,
    format: "markdown",
    doc_path: "/ingest/vault/long.md",
    document_id: queued.document_id,
    hash: queued.hash,
    name: file,
    root: s.root,
  });

  const done = await runIngestFileJob(s.service, ADMIN, { brain_id: job.brain_id, payload });
  assert.equal(done.document_id, queued.document_id);
  assert.equal(done.status, "completed");
  assert.ok(done.chunk_count > 0);
  const doc = await s.service.get(ADMIN, { id: queued.document_id });
  assert.equal(doc.path, "/ingest/vault/long.md");

  // Once stored, the unchanged big file is reused at once rather than queued again.
  const again = await ingestFile(s.service, ADMIN, {
    path: file,
    ...s.opts,
    queue: { bytes: 1000, jobs: s.storage.jobs },
  });
  assert.equal(again.status, "completed");
  assert.equal(again.reused, true);
  assert.equal(again.document_id, queued.document_id);
});

Deno.test("runIngestFileJob fails with conflict when the file changed after queueing, not_found when it is gone", async () => {
  await using s = await setup();
  const file = `${s.root}/moving.md`;
  await Deno.writeTextFile(file, "# Moving\n\n" + "x ".repeat(600));
  const queued = await ingestFile(s.service, ADMIN, {
    path: file,
    ...s.opts,
    queue: { bytes: 10, jobs: s.storage.jobs },
  });
  const job = (await s.storage.jobs.getJob(queued.job_id!))!;
  const payload = job.payload as unknown as IngestFileJobPayload;

  await Deno.writeTextFile(file, "# Moving\n\nedited\n");
  await rejects(
    () => runIngestFileJob(s.service, ADMIN, { brain_id: job.brain_id, payload }),
    "conflict",
    `file ${file} changed after it was queued; ingest it again`,
  );
  await Deno.remove(file);
  await rejects(
    () => runIngestFileJob(s.service, ADMIN, { brain_id: job.brain_id, payload }),
    "not_found",
    new RegExp(`^file ${file} disappeared before it was ingested: `),
  );
  assert.equal(await documentCount(s.service), 0);
});

Deno.test("ingestFile checks the file before the brain: an unknown brain stores nothing", async () => {
  await using s = await setup();
  await Deno.writeTextFile(`${s.root}/a.md`, "# A\n");
  await rejects(
    () => ingestFile(s.service, ADMIN, { path: `${s.root}/a.md`, brain: "nope", ...s.opts }),
    "no_brain",
    /brain "nope" not found/,
  );
  assert.equal(await documentCount(s.service), 0);
});

Deno.test("queueing the same large file twice before it runs answers with the same job and document id", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const o = await queuedBigFile(dir.path, s.storage.jobs);
  const first = await ingestFile(s.service, ADMIN, o);
  const second = await ingestFile(s.service, ADMIN, o);
  assert.equal(first.status, "queued");
  assert.equal(second.job_id, first.job_id);
  assert.equal(second.document_id, first.document_id);
});

Deno.test("an unchanged file is answered from its hash without being extracted again", async () => {
  await using dir = await tempDir();
  using s = await openService(dir.path);
  const file = `${dir.path}/notes.txt`;
  await Deno.writeTextFile(file, "plain words");
  const o = { path: file, roots: [dir.path], cwd: dir.path };
  const first = await ingestFile(s.service, ADMIN, o);
  // Read as a PDF these bytes would fail; unchanged, they are never read as anything.
  const again = await ingestFile(s.service, ADMIN, { ...o, as: "pdf" });
  assert.equal(again.reused, true);
  assert.equal(again.document_id, first.document_id);
});
